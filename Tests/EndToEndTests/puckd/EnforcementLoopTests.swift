import Foundation
import Glibc
import Testing

private let paired = "04:A2:3B:11:22:33:44"
private let stranger = "04:99:88:77:66:55:44"

/// The whole loop with real processes, a real socket and real ALSA (into a PulseAudio null sink).
@Suite("puckd enforcement loop", .serialized)
struct EnforcementLoopTests {
  @Test("pairing with two simulated scans writes a root-only pairing file")
  func pairing() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    try dock.pair(paired)
    var info = stat()
    #expect(stat(dock.stateDirectory + "/pairing.json", &info) == 0)
    #expect(info.st_uid == geteuid())
    #expect(info.st_mode & 0o777 == 0o600)
    #expect(try dock.status()["pairedTag"] as? String == "…:33:44")
  }

  @Test("an alarm rings, stop silences it, it rings again, a wrong tag changes nothing, the puck ends it")
  func wholeLoop() throws {
    let dock = try DaemonHarness(config: "[enforcement]\nretry_delay = 5s\nstop_after = 5s\n")
    try dock.start()
    try dock.pair(paired)
    try dock.addAlarm(inSeconds: 2)

    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    try waitUntil(timeout: 5, "audio reaches the sink") { try dock.audio!.peak(seconds: 0.4) > 1000 }

    #expect(try dock.stopOnceHeard().status == 0)
    #expect(try !dock.isRinging())
    #expect(try dock.guards().first?["bypassCount"] as? Int == 1)
    #expect(try !dock.audio!.hasStream(), "stop drops the PCM at once")
    #expect(try dock.audio!.peak(seconds: 0.5) < 100)

    try waitUntil(timeout: 9, "the retry rings") { try dock.isRinging() }
    #expect(try (dock.guards().first?["description"] as? String)?.hasSuffix("retry 1") == true)
    try waitUntil(timeout: 5, "retry audio reaches the sink") { try dock.audio!.peak(seconds: 0.4) > 1000 }

    let wrong = try dock.ctl("scan", stranger)
    #expect(wrong.status == 0)
    #expect(wrong.stdout.contains("not the paired tag"))
    #expect(try dock.isRinging())
    #expect(dock.log.contains("wrong puck …:55:44"))
    #expect(!dock.log.contains(stranger), "logs never carry a whole UID")

    #expect(try dock.ctl("scan", paired).status == 0)
    #expect(try dock.guards().isEmpty)
    try waitUntil(timeout: 3, "the stream is gone") { try !dock.audio!.hasStream() }
    #expect(try dock.audio!.peak(seconds: 0.5) < 100)

    let history = try dock.ctl("history", "--json")
    let object = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any]
    let entries = object?["history"] as? [[String: Any]] ?? []
    #expect(entries.count == 1)
    #expect(entries.first?["outcome"] as? String == "woke")
    #expect(entries.first?["bypassCount"] as? Int == 1)
    #expect(entries.first?["rings"] as? Int == 2)
  }

  @Test("kill -9 while ringing: the restarted daemon rings again by itself")
  func crashWhileRinging() throws {
    let dock = try DaemonHarness()
    try dock.start()
    try dock.pair(paired)
    try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    dock.stop(signal: SIGKILL)
    try dock.start()
    #expect(try dock.isRinging())
    try waitUntil(timeout: 5, "audio after the restart") { try dock.audio!.peak(seconds: 0.4) > 1000 }
    #expect(try dock.ctl("scan", paired).status == 0)
    #expect(try dock.guards().isEmpty)
  }

  @Test("kill -9 while deferred between retries: the restarted daemon rings at the retry time")
  func crashWhileDeferred() throws {
    // A stop after 10 s of ring buys the whole 5 s retry delay (at most half the ring heard).
    let dock = try DaemonHarness(config: "[enforcement]\nretry_delay = 5s\nstop_after = 10s\n")
    try dock.start()
    try dock.pair(paired)
    try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    #expect(try dock.stopOnceHeard().status == 0)
    dock.stop(signal: SIGKILL)
    try dock.start()
    #expect(try !dock.isRinging(), "the retry time has not come yet")
    #expect(try dock.guards().count == 1)
    try waitUntil(timeout: 8, "the retry rings after the restart") { try dock.isRinging() }
    try waitUntil(timeout: 5, "audio after the restart") { try dock.audio!.peak(seconds: 0.4) > 1000 }
  }

  @Test("a client that is not root or in the group may read status but not change anything")
  func unprivilegedClient() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    let status = try dock.ctl("status", as: "nobody")
    #expect(status.status == 1, "status works (and says not protected): \(status.stderr)")
    #expect(status.stdout.contains("NOT PROTECTED"))
    #expect(try dock.ctl("alarm", "list", as: "nobody").status == 0)
    #expect(try dock.ctl("history", as: "nobody").status == 0)
    for command in [
      ["pair"], ["unpair"], ["override", "--yes"], ["alarm", "add", "06:30"], ["stop"], ["scan", paired],
    ] {
      let result = try dock.ctl(command, as: "nobody")
      #expect(result.status == 77, "\(command) must be refused: \(result.stdout) \(result.stderr)")
    }
    #expect(try dock.ctl("alarm", "list", "--json").stdout.contains("\"alarms\":[]"))
  }

  @Test("garbage, an oversized line and a silent connection do not delay an alarm")
  func hostileClients() throws {
    let dock = try DaemonHarness()
    try dock.start()
    try dock.pair(paired)
    let silent = try RawClient(path: dock.socketPath)
    let oversized = try RawClient(path: dock.socketPath)
    try oversized.send([UInt8](repeating: UInt8(ascii: "x"), count: 100 * 1024))
    let garbage = try RawClient(path: dock.socketPath)
    try garbage.send(Array("this is not json\n".utf8))
    let unknown = try RawClient(path: dock.socketPath)
    try unknown.send(Array(#"{"v":1,"command":"self-destruct"}"#.utf8) + [10])
    let fire = try dock.addAlarm(inSeconds: 2)

    let garbageReply = try garbage.readLine()
    #expect(garbageReply.contains("\"ok\":false"))
    #expect(try unknown.readLine().contains("unknown command"))
    #expect(try oversized.readLine().contains("64 KiB"))
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    #expect(Date().timeIntervalSince(fire) < 2, "rang on time despite the clients")
    #expect(try silent.readToEnd(timeout: 8).isEmpty, "a silent client is closed without a reply")
  }

  @Test("pair says it is waiting and gives up after its timeout, pairing nothing")
  func pairTimesOut() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    let result = try dock.ctl("pair", "--timeout", "1s")
    #expect(result.status == 1)
    #expect(result.stdout.contains("waiting for a tag"))
    #expect(result.stderr.contains("no tag seen within 1 s"))
    #expect(!FileManager.default.fileExists(atPath: dock.stateDirectory + "/pairing.json"))
  }

  @Test("every command has --help, and a command that needs the daemon says how to start it")
  func helpAndNoDaemon() throws {
    for command in [
      "status", "pair", "unpair", "alarm", "stop", "scan", "override", "history", "test", "acknowledge",
      "calendar",
    ] {
      let result = try run("puckctl", [command, "--help"])
      #expect(result.status == 0, "\(command) --help")
      #expect(result.stdout.contains("usage: "), "\(command) --help prints its usage")
    }
    let missing = try run("puckctl", ["--socket", "/nonexistent/puckd.sock", "status"])
    #expect(missing.status == 69)
    #expect(missing.stderr.contains("puckd is not running"))
    #expect(missing.stderr.contains("sudo systemctl start puckd"))
  }

  @Test("a pairing that is waiting when an alarm rings is refused, and the scan goes to the wake-up")
  func pairingCancelledByAlarm() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.writePairing(paired)
    try dock.start()
    let pairing = Process()
    pairing.executableURL = Binaries.url("puckctl")
    pairing.arguments = ["--socket", dock.socketPath, "pair", "--timeout", "60s"]
    pairing.standardOutput = FileHandle.nullDevice
    let errors = try CapturedOutput()
    pairing.standardError = errors.handle
    try pairing.spawn()
    try waitUntil(timeout: 5, "pairing waits") { dock.log.contains("pairing: waiting") }
    try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    pairing.waitUntilExit()
    #expect(pairing.terminationStatus == 2, "refused by policy")
    #expect(errors.text.contains("pairing is refused"))
    #expect(try dock.ctl("scan", paired).status == 0)
    #expect(try dock.guards().isEmpty, "the scan ended the wake-up instead of feeding a pairing")
  }

  @Test("a flood of idle connections neither stops an alarm nor locks puckctl out for good")
  func connectionFlood() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    let fire = try dock.addAlarm(inSeconds: 8)
    var flood: [RawClient] = []
    let deadline = Date().addingTimeInterval(2)
    while flood.count < 75 && Date() < deadline {
      // Past the daemon's slots (64, and 16 more for root and the group: this test runs as
      // root) connections wait in the backlog; a full backlog refuses.
      if let client = try? RawClient(path: dock.socketPath, blocking: false) {
        flood.append(client)
      } else {
        usleep(2000)
      }
    }
    // puckctl may wait in the backlog until the idle connections are dropped (5 s).
    try waitUntil(timeout: 20, "the alarm rings despite the flood") { try dock.isRinging() }
    #expect(dock.log.contains("RINGING"))
    #expect(Date().timeIntervalSince(fire) < 5)
    #expect(flood.count > 64)
    #expect(dock.log.contains("sent no request in time"))
  }

  @Test("a simulated scan is refused by a daemon with a real reader")
  func scanRefusedWithoutSimulate() throws {
    let dock = try DaemonHarness(
      simulate: false, config: "[reader]\ndevice = pn532_uart:/dev/null-reader\n", audio: false)
    try dock.start()
    let result = try dock.ctl("scan", paired)
    #expect(result.status == 2)
    #expect(result.stderr.contains("--simulate"))
    #expect(try dock.status()["simulated"] as? Bool == false)
  }

  @Test(
    "the sound device vanishes mid-ring: the guard keeps ringing, status shows the fault, audio returns with the device"
  )
  func audioDeviceLost() throws {
    let dock = try DaemonHarness()
    try dock.start()
    try dock.pair(paired)
    try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    try waitUntil(timeout: 5, "audio reaches the sink") { try dock.audio!.peak(seconds: 0.3) > 1000 }
    func audioState() throws -> String? {
      let devices = try dock.status()["devices"] as? [[String: Any]] ?? []
      return devices.first { $0["name"] as? String == "audio" }?["state"] as? String
    }
    dock.audio!.unload()
    try waitUntil(timeout: 5, "status shows the audio fault") { try audioState() == "fault" }
    #expect(try dock.isRinging(), "the wake-up does not end because the speaker went away")
    #expect(try dock.ctl("status").stdout.contains("nothing can ring"))
    try dock.audio!.load()
    try waitUntil(timeout: 15, "audio is retried and plays again") { try audioState() == "ok" }
    try waitUntil(timeout: 5, "sound reaches the returned sink") { try dock.audio!.peak(seconds: 0.3) > 1000 }
    #expect(try dock.ctl("scan", paired).status == 0)
    #expect(try dock.guards().isEmpty)
  }

  @Test("puckctl test rings briefly and reports every device")
  func rehearsal() throws {
    let dock = try DaemonHarness()
    try dock.start()
    let rehearsal = Process()
    rehearsal.executableURL = Binaries.url("puckctl")
    // The ring and the devices only; asking for the puck is `RehearsalTests`'.
    rehearsal.arguments = ["--socket", dock.socketPath, "test", "--seconds", "2", "--scan-seconds", "0"]
    let output = try CapturedOutput()
    rehearsal.standardOutput = output.handle
    try rehearsal.spawn()
    try waitUntil(timeout: 5, "the rehearsal is heard") { try dock.audio!.peak(seconds: 0.3) > 1000 }
    rehearsal.waitUntilExit()
    let printed = output.text
    #expect(rehearsal.terminationStatus == 0, "\(printed)")
    for device in ["reader: simulated", "audio: ok", "buzzer: absent", "button: absent", "led: absent"] {
      #expect(printed.contains(device), "\(device) in: \(printed)")
    }
    try waitUntil(timeout: 3, "the rehearsal stops by itself") { try !dock.audio!.hasStream() }
    #expect(try dock.guards().isEmpty, "a rehearsal is not a wake-up")
  }

  @Test("SIGTERM while idle exits 0 promptly and leaves state intact")
  func sigterm() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    try dock.pair(paired)
    #expect(try dock.ctl("alarm", "add", "06:30", "--days", "weekdays").status == 0)
    let alarmsBefore = try Data(contentsOf: URL(fileURLWithPath: dock.stateDirectory + "/alarms.json"))
    let started = Date()
    #expect(dock.stop(signal: SIGTERM) == 0)
    #expect(Date().timeIntervalSince(started) < 3)
    #expect(try Data(contentsOf: URL(fileURLWithPath: dock.stateDirectory + "/alarms.json")) == alarmsBefore)
    #expect(FileManager.default.fileExists(atPath: dock.stateDirectory + "/pairing.json"))
    #expect(!FileManager.default.fileExists(atPath: dock.socketPath), "the socket is removed")
    try dock.start()
    #expect(try dock.ctl("alarm", "list").stdout.contains("06:30  weekdays"))
    #expect(try dock.status()["pairedTag"] as? String == "…:33:44")
  }
}

/// A hand-driven socket client for sending what puckctl never would.
final class RawClient {
  let fd: Int32

  init(path: String, blocking: Bool = true) throws {
    fd = unixSocket(SOCK_STREAM, path: path, nonblocking: !blocking)
    guard fd >= 0 else { throw HarnessError("connect failed") }
  }

  deinit { close(fd) }

  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      // The daemon may close an oversized request before reading it all.
      if written <= 0 { return }
      offset += written
    }
  }

  /// Reads until a newline or the end, within 5 s.
  func readLine() throws -> String {
    String(decoding: try readToEnd(timeout: 5, stopAtNewline: true), as: UTF8.self)
  }

  /// Reads until the peer closes (or a newline), or `timeout` seconds pass (then throws).
  func readToEnd(timeout: Double, stopAtNewline: Bool = false) throws -> [UInt8] {
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(timeout * Sanitized.slack)
    var chunk = [UInt8](repeating: 0, count: 4096)
    while Date() < deadline {
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 100) > 0 else { continue }
      let count = read(fd, &chunk, chunk.count)
      if count <= 0 { return received }
      received += chunk[0..<count]
      if stopAtNewline && received.contains(10) { return received }
    }
    throw HarnessError("no end of stream within \(timeout) s")
  }
}
