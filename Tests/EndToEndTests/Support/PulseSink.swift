import Foundation
import Glibc

/// One PulseAudio server for the whole test run, on a private socket: the ALSA `pulse` device
/// plays into its null sinks at wall-clock speed, and `parec` records their monitors.
final class PulseServer: Sendable {
  static let shared = PulseServer()
  let address: String
  private let socket: String

  private init() {
    socket = FileManager.default.temporaryDirectory.appendingPathComponent("puck-pulse-\(getpid())").path
    address = "unix:" + socket
  }

  /// Starts the server if it is not answering (it exits by itself once the tests are idle).
  func ensureRunning() throws {
    if (try? pactl(["info"]).status) == 0 { return }
    // Started through sh, detached, with its own stdio: a child of this process would hold
    // this process's pipes open and block readers waiting for EOF.
    let command =
      "setsid pulseaudio -n --daemonize=no --exit-idle-time=20 --use-pid-file=no --system=false "
      + "--disable-shm=yes --log-target=stderr --log-level=error "
      + "-L 'module-native-protocol-unix socket=\(socket) auth-anonymous=1' </dev/null >>\(socket).log 2>&1 &"
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = ["-c", command]
    shell.standardInput = FileHandle.nullDevice
    shell.standardOutput = FileHandle.nullDevice
    shell.standardError = FileHandle.nullDevice
    try shell.spawn()
    shell.waitUntilExit()
    try waitUntil(timeout: 10, "pulseaudio answers") { (try? self.pactl(["info"]).status) == 0 }
  }

  func pactl(_ arguments: [String]) throws -> ProcessResult {
    try runExternal("/usr/bin/env", ["PULSE_SERVER=\(address)", "pactl"] + arguments)
  }
}

/// A null sink of one test's own, so parallel tests never hear each other.
final class PulseSink {
  let name: String
  private var module: String?

  init() throws {
    try PulseServer.shared.ensureRunning()
    name = "puck_\(UUID().uuidString.prefix(8))"
    try load()
  }

  /// Creates the sink (again, after `unload`: the sound device comes back under the same name).
  func load() throws {
    let result = try PulseServer.shared.pactl(["load-module", "module-null-sink", "sink_name=\(name)"])
    guard result.status == 0 else { throw HarnessError("could not load a null sink: \(result.stderr)") }
    module = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  func unload() {
    if let module { _ = try? PulseServer.shared.pactl(["unload-module", module]) }
    module = nil
  }

  /// Records the sink's monitor for `seconds` and returns the peak absolute sample (0 when the
  /// sink was silent or received nothing).
  func peak(seconds: Double) throws -> Int {
    try record(seconds: seconds).map { abs(Int($0)) }.max() ?? 0
  }

  /// Records the sink's monitor for `seconds`: 48 kHz mono samples, from when the recorder
  /// started (which, on a loaded machine, can be a while after the call).
  func record(seconds: Double) throws -> [Int16] {
    let recorder = Process()
    recorder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    recorder.arguments = [
      "PULSE_SERVER=\(PulseServer.shared.address)", "parec", "-d", "\(name).monitor", "--format=s16le",
      "--rate=48000", "--channels=1", "--raw", "--latency-msec=20",
    ]
    let out = try CapturedOutput()
    recorder.standardOutput = out.handle
    recorder.standardError = FileHandle.nullDevice
    try recorder.spawn()
    usleep(UInt32(seconds * 1_000_000))
    kill(recorder.processIdentifier, SIGKILL)
    recorder.waitUntilExit()
    return out.data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
  }

  /// Whether a stream is playing into this sink now (pactl's sink-input list).
  func hasStream() throws -> Bool {
    let sinks = try PulseServer.shared.pactl(["list", "short", "sinks"]).stdout
    guard
      let index = sinks.split(separator: "\n").first(where: { $0.contains(name) })?.split(separator: "\t")
        .first
    else { return false }
    let inputs = try PulseServer.shared.pactl(["list", "short", "sink-inputs"]).stdout
    return inputs.split(separator: "\n").contains { $0.split(separator: "\t").dropFirst().first == index }
  }
}
