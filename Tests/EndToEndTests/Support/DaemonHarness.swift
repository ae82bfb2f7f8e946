import Foundation
import Glibc
import Testing

/// A `puckd` child process with its own temporary state directory, config and socket, driven
/// through the real `puckctl` binary and killed for real.
final class DaemonHarness {
  let directory: URL
  let socketPath: String
  let stateDirectory: String
  let configPath: String
  let logPath: String
  let simulate: Bool
  let audio: PulseSink?
  /// puckd's `HOME`, whose `.asoundrc` a test may add to (keep what is there).
  let home: String
  /// Added to puckd's environment (TZ, NOTIFY_SOCKET, WATCHDOG_USEC, …).
  var environment: [String: String] = [:]
  private(set) var process: Process?

  /// Creates the folder and config; call `start()` to run the daemon. `lockBefore` is written
  /// into `[enforcement]` unless the config sets it or it is nil (a test of the config file's
  /// exact text).
  init(simulate: Bool = true, config: String = "", audio: Bool = true, lockBefore: String? = "0s") throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "puckd-e2e-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    // Other users (the non-root client test) must reach the socket.
    chmod(directory.path, 0o755)
    socketPath = directory.appendingPathComponent("puckd.sock").path
    stateDirectory = directory.appendingPathComponent("state").path
    configPath = directory.appendingPathComponent("puckd.conf").path
    logPath = directory.appendingPathComponent("puckd.log").path
    self.simulate = simulate
    self.audio = audio ? try PulseSink() : nil
    home = directory.appendingPathComponent("home").path
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    // The plain `pulse` control device mixes the server's default sink, which may be another
    // test's, and puckd raises the mixer while it rings (docs/DESIGN.md V12): each dock's
    // `pulse` mixer is its own sink. (The PCM keeps `PULSE_SINK`: a stream named to a sink by
    // `pulse:SINK` is moved to another test's sink when its own goes away.)
    if let sink = self.audio?.name {
      try "ctl.!pulse { type pulse; device \"\(sink)\" }\n".write(
        toFile: home + "/.asoundrc", atomically: true, encoding: .utf8)
      environment["HOME"] = home
    }
    var text = config
    if audio && !text.contains("[audio]") {
      text += "\n[audio]\ndevice = pulse\nstart_volume = 100%\nramp = 0s\n"
    }
    // The hour-before lock off unless a test sets it: the suites set alarms at fixed times (06:30)
    // and must not depend on the hour they run at (the lock's own: LockWindowAttackTests).
    if let lockBefore, !text.contains("lock_before") {
      text =
        text.contains("[enforcement]\n")
        ? text.replacingOccurrences(
          of: "[enforcement]\n", with: "[enforcement]\nlock_before = \(lockBefore)\n")
        : text + "\n[enforcement]\nlock_before = \(lockBefore)\n"
    }
    try text.write(toFile: configPath, atomically: true, encoding: .utf8)
  }

  deinit {
    stop(signal: SIGKILL)
    audio?.unload()
    // Every daemon of every end-to-end test: no line of its log holds a whole UID (docs/DESIGN.md
    // P2). A masked UID is its last two bytes (…:33:44); four or more bytes in a row is a leak.
    let wholeUID = #/(?i)\b[0-9a-f]{2}(:[0-9a-f]{2}){3,}\b/#
    if let line = log.split(separator: "\n").first(where: { $0.contains(wholeUID) }) {
      Issue.record("a whole UID in puckd's log: \(line)")
    }
    try? FileManager.default.removeItem(at: directory)
  }

  /// Starts `puckd` and waits until it answers on its socket.
  func start() throws {
    let process = Process()
    process.executableURL = Binaries.url("puckd")
    var arguments = ["--config", configPath, "--state-dir", stateDirectory, "--socket", socketPath]
    if simulate { arguments.append("--simulate") }
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["LIBNFC_AUTO_SCAN"] = "false"
    environment.removeValue(forKey: "NOTIFY_SOCKET")
    if let audio {
      environment["PULSE_SERVER"] = PulseServer.shared.address
      environment["PULSE_SINK"] = audio.name
    }
    for (key, value) in self.environment { environment[key] = value }
    process.environment = environment
    try process.run(appendingOutputTo: logPath)
    self.process = process
    // The wait detects a daemon that never comes up; several daemons starting at once on a
    // loaded two-core machine took longer than 10 s once (CI), so it is generous, and a failure
    // says whether puckd is still running and what it logged.
    do {
      try waitUntil(timeout: 30, "puckd answers on its socket") {
        (try? self.ctl("status").status).map { $0 == 0 || $0 == 1 } ?? false
      }
    } catch {
      let state = process.isRunning ? "still running" : "exited with \(process.terminationStatus)"
      let tail = log.split(separator: "\n").suffix(12).joined(separator: "\n")
      throw HarnessError("\(error); puckd \(state); its log ends:\n\(tail)")
    }
  }

  /// Sends `signal` and waits for the process to exit; returns its exit status.
  @discardableResult
  func stop(signal: Int32 = SIGTERM) -> Int32? {
    guard let process, process.isRunning else { return nil }
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    self.process = nil
    return process.terminationStatus
  }

  /// Runs `puckctl --socket … ARGS`.
  func ctl(_ arguments: String..., as user: String? = nil, stdin: String? = nil) throws -> ProcessResult {
    try ctl(arguments, as: user, stdin: stdin)
  }

  func ctl(_ arguments: [String], as user: String? = nil, stdin: String? = nil) throws -> ProcessResult {
    let full = ["--socket", socketPath] + arguments
    guard user == "nobody" else { return try run("puckctl", full, stdin: stdin) }
    return try runExternal(
      "/usr/bin/setpriv",
      ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.url("puckctl").path] + full)
  }

  /// `puckctl stop` as soon as it counts: from the socket a stop counts only once the ring has
  /// been heard for `stop_after` (docs/DESIGN.md W18), and is refused before; tried every
  /// quarter second until it is taken or refused for another reason.
  func stopOnceHeard(timeout: Double = 40) throws -> ProcessResult {
    let deadline = Date(timeIntervalSinceNow: timeout * Sanitized.slack)
    while true {
      let stop = try ctl("stop")
      guard stop.status == 2, stop.stderr.contains("before puckctl stop counts"), Date() < deadline else {
        return stop
      }
      usleep(250_000)
    }
  }

  /// `puckctl status --json`, decoded.
  func status() throws -> [String: Any] {
    let result = try ctl("status", "--json")
    guard let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
      let status = object["status"] as? [String: Any]
    else {
      throw HarnessError(
        "status --json exited \(result.status) with stdout '\(result.stdout)', stderr '\(result.stderr)'; "
          + "puckd \(process?.isRunning == true ? "running" : "not running")")
    }
    return status
  }

  /// Whether a wake-up is ringing now, from status.
  func isRinging() throws -> Bool {
    let guards = try status()["guards"] as? [[String: Any]] ?? []
    return guards.contains { $0["ringing"] as? Bool == true }
  }

  /// The open guards from status.
  func guards() throws -> [[String: Any]] {
    try status()["guards"] as? [[String: Any]] ?? []
  }

  /// Writes a state file in its versioned envelope before the daemon starts.
  func writeState(_ name: String, payload: String) throws {
    try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
    try #"{"payload": \#(payload), "schemaVersion": 1}"#.write(
      toFile: stateDirectory + "/" + name, atomically: true, encoding: .utf8)
    chmod(stateDirectory + "/" + name, 0o600)
  }

  /// Writes a pairing for `uid`, as `puckctl pair` would have.
  func writePairing(_ uid: String) throws {
    try writeState("pairing.json", payload: #"{"uid": "\#(uid)", "pairedAt": "2026-01-01T00:00:00Z"}"#)
  }

  /// Sends a signal without waiting.
  func signal(_ number: Int32) {
    if let process { kill(process.processIdentifier, number) }
  }

  /// Pairs `uid` with two simulated scans.
  func pair(_ uid: String, name: String? = nil) throws {
    let pairing = Process()
    pairing.executableURL = Binaries.url("puckctl")
    pairing.arguments =
      ["--socket", socketPath, "pair", "--timeout", "20s"] + (name.map { ["--name", $0] } ?? [])
    pairing.standardOutput = FileHandle.nullDevice
    // A pairing earlier in the same daemon's life logged the line too: wait for a new one.
    let earlier = log.components(separatedBy: "pairing: waiting").count
    try pairing.spawn()
    try waitUntil(timeout: 5, "pairing is waiting") {
      self.log.components(separatedBy: "pairing: waiting").count > earlier
    }
    for _ in 0..<2 {
      let scan = try ctl("scan", uid)
      guard scan.status == 0 else { throw HarnessError("scan failed: \(scan.stderr)") }
    }
    pairing.waitUntilExit()
    guard pairing.terminationStatus == 0 else {
      throw HarnessError("pair exited \(pairing.terminationStatus)")
    }
  }

  /// Adds a one-shot alarm `seconds` from now (local wall clock) and returns its fire time.
  @discardableResult
  func addAlarm(inSeconds seconds: Int, extra: [String] = []) throws -> Date {
    let fire = Date().addingTimeInterval(TimeInterval(seconds))
    let formatter = DateFormatter()
    formatter.dateFormat = "HH:mm:ss"
    formatter.timeZone = .current
    let time = formatter.string(from: fire)
    formatter.dateFormat = "yyyy-MM-dd"
    let result = try ctl(["alarm", "add", time, "--date", formatter.string(from: fire)] + extra)
    guard result.status == 0 else { throw HarnessError("alarm add: \(result.stderr)") }
    return fire
  }

  /// What the daemon logged so far.
  var log: String {
    (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
  }

  /// The clients puckd has accepted on its socket and not yet closed: the accepted ends, which
  /// `/proc/net/unix` lists as connected (`03`) with the socket's path.
  var connectedClients: Int {
    let table = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
    return table.split(separator: "\n").filter { line in
      let fields = line.split(separator: " ")
      return fields.count >= 8 && fields[5] == "03" && fields[7] == socketPath
    }.count
  }
}

/// A test set-up failure with a message.
struct HarnessError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Polls `condition` every 50 ms until it holds or `timeout` seconds pass.
func waitUntil(timeout: Double, _ what: String, _ condition: () throws -> Bool) throws {
  let deadline = Date().addingTimeInterval(timeout * Sanitized.slack)
  while Date() < deadline {
    if try condition() { return }
    usleep(50_000)
  }
  throw HarnessError("timed out after \(timeout * Sanitized.slack) s waiting until \(what)")
}

/// Runs any program to completion.
func runExternal(_ path: String, _ arguments: [String]) throws -> ProcessResult {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  return try process.runToCompletion()
}

extension Process {
  /// Runs with stdout and stderr appended to the file at `path` (made if missing), so a restarted
  /// process adds to the log of the one before.
  func run(appendingOutputTo path: String) throws {
    if !FileManager.default.fileExists(atPath: path) {
      _ = FileManager.default.createFile(atPath: path, contents: nil)
    }
    let log = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    log.seekToEndOfFile()
    standardError = log
    standardOutput = log
    try spawn()
  }
}
