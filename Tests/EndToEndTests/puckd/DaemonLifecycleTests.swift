import CLinux
import Foundation
import Glibc
import Testing

/// Start-up, downtime, config reload and systemd notification, with real processes.
@Suite("puckd lifecycle", .serialized)
struct DaemonLifecycleTests {
  /// `HH:MM:SS` and the ISO instant, in UTC, `offset` seconds from now.
  private func utc(_ offset: TimeInterval) -> (time: String, iso: String) {
    let date = Date().addingTimeInterval(offset)
    let formatter = DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "HH:mm:ss"
    let time = formatter.string(from: date)
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
    return (time, formatter.string(from: date))
  }

  private func dailyAlarm(at time: String) -> String {
    #"{"alarms": [{"id": 1, "time": "\#(time)", "days": ["mon","tue","wed","thu","fri","sat","sun"], "label": "", "enabled": true, "requiresPuck": true}], "nextID": 2}"#
  }

  @Test("its log reader gone (stderr a pipe nobody reads): puckd logs on and keeps answering, no SIGPIPE")
  func logReaderGoneIsNoCrash() throws {
    let dock = try DaemonHarness(config: "[audio]\ndevice = null\n", audio: false)
    let process = Process()
    process.executableURL = Binaries.url("puckd")
    process.arguments = [
      "--simulate", "--config", dock.configPath, "--state-dir", dock.stateDirectory, "--socket",
      dock.socketPath,
    ]
    // Close-on-exec from the start (Foundation's `Pipe` is not; see `CapturedOutput`): a read end
    // that leaked into another test's child would keep the pipe read, and the test would pass
    // without puckd ever meeting a pipe with no reader.
    var ends: [Int32] = [-1, -1]
    try #require(pipe2(&ends, O_CLOEXEC) == 0)
    let reading = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
    let writing = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
    process.standardError = writing
    process.standardOutput = writing
    try process.spawn()
    try writing.close()
    defer {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    try waitUntil(timeout: 10, "puckd answers") { (try? dock.ctl("status").status).map { $0 <= 1 } ?? false }
    // journald restarted, a terminal closed: the reading end goes away.
    try reading.close()
    for minute in 0..<5 {
      // Each change is logged, to the pipe that has no reader any more.
      _ = try dock.ctl("alarm", "add", "06:0\(minute)", "--days", "daily")
    }
    #expect(process.isRunning, "puckd was killed by SIGPIPE")
    #expect(try dock.ctl("alarm", "list").stdout.contains("06:04"))
  }

  @Test("an alarm that fell due while the daemon was down rings on start when within the grace")
  func lateWithinGrace() throws {
    let dock = try DaemonHarness(audio: false)
    dock.environment["TZ"] = "UTC"
    try dock.writeState("alarms.json", payload: dailyAlarm(at: utc(-600).time))
    try dock.writeState(
      "guards.json",
      payload: #"{"guards": [], "scheduledThrough": "\#(utc(-3600).iso)", "unacknowledgedMissed": []}"#)
    try dock.start()
    #expect(try dock.isRinging())
    #expect(dock.log.contains("RINGING"))
  }

  @Test("an alarm due longer ago than the grace is recorded as missed, not rung")
  func missedBeyondGrace() throws {
    let dock = try DaemonHarness(audio: false)
    dock.environment["TZ"] = "UTC"
    try dock.writeState("alarms.json", payload: dailyAlarm(at: utc(-2400).time))
    try dock.writeState(
      "guards.json",
      payload: #"{"guards": [], "scheduledThrough": "\#(utc(-3600).iso)", "unacknowledgedMissed": []}"#)
    try dock.start()
    #expect(try !dock.isRinging())
    let missed = try dock.status()["missed"] as? [String] ?? []
    #expect(missed.count == 1)
    let history = try dock.ctl("history").stdout
    #expect(history.contains("MISSED"))
    #expect(try dock.ctl("acknowledge").status == 0)
    #expect(try (dock.status()["missed"] as? [String] ?? []).isEmpty)
  }

  @Test("a corrupt alarms file is kept aside, the last good copy used, and status reports it")
  func corruptState() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    #expect(try dock.ctl("alarm", "add", "06:30", "--days", "weekdays").status == 0)
    #expect(try dock.ctl("alarm", "add", "07:45", "--days", "weekends").status == 0)
    dock.stop()
    let path = dock.stateDirectory + "/alarms.json"
    try Data("{\"payload\": {\"alarms\": [".utf8).write(to: URL(fileURLWithPath: path))
    try dock.start()
    let kept = try FileManager.default.contentsOfDirectory(atPath: dock.stateDirectory).filter {
      $0.hasPrefix("alarms.json.corrupt-")
    }
    #expect(kept.count == 1)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: dock.stateDirectory + "/" + kept[0]))
        == Data("{\"payload\": {\"alarms\": [".utf8))
    #expect(try dock.ctl("alarm", "list").stdout.contains("06:30"), "the last good copy is used")
    let status = try dock.status()
    #expect((status["problems"] as? [String] ?? []).contains { $0.contains("alarms.json") })
    #expect(try dock.ctl("status").status == 1)
  }

  @Test("a bad config is reported with file and line; SIGHUP keeps the previous settings")
  func badConfig() throws {
    let dock = try DaemonHarness(config: "[enforcement]\nretry_delay = 20s\n", audio: false)
    try dock.start()
    try "[enforcement]\nretry_delay = 2s\n".write(toFile: dock.configPath, atomically: true, encoding: .utf8)
    dock.signal(SIGHUP)
    try waitUntil(timeout: 5, "the reload is logged") { dock.log.contains("puckd.conf:2:") }
    #expect(dock.log.contains("keeping the previous settings"))
    let problems = try dock.status()["problems"] as? [String] ?? []
    #expect(problems.contains { $0.contains("puckd.conf:2:") && $0.contains("retry_delay") })
  }

  @Test("puckctl reload answers whether the config was taken: a mistake with its file:line, then the fix")
  func reloadOverTheSocket() throws {
    let dock = try DaemonHarness(config: "[enforcement]\nretry_delay = 20s\n", audio: false)
    try dock.start()
    try "[enforcement]\nretry_delay = 2s\n".write(toFile: dock.configPath, atomically: true, encoding: .utf8)
    let refused = try dock.ctl("reload")
    #expect(refused.status == 1)
    #expect(
      refused.stderr.contains("puckd.conf:2:") && refused.stderr.contains("retry_delay"), "\(refused.stderr)")
    #expect(refused.stderr.contains("keeps its previous settings"))

    try "[enforcement]\nretry_delay = 45s\n".write(toFile: dock.configPath, atomically: true, encoding: .utf8)
    let taken = try dock.ctl("reload")
    #expect(taken.status == 0, "\(taken.stderr)")
    #expect(taken.stdout.contains("again and applied it"))
    let problems = try dock.status()["problems"] as? [String] ?? []
    #expect(!problems.contains { $0.contains("puckd.conf") }, "\(problems)")
  }

  @Test("a long history reaches puckctl whole, however slowly the socket drains")
  func longHistory() throws {
    let dock = try DaemonHarness(audio: false)
    let line =
      #"{"payload": {"outcome": "woke", "occurrence": {"alarmID": 1, "label": "gym \#(String(repeating: "x", count: 60))", "time": "06:30", "#
      + #""scheduledAt": "2026-03-30T03:30:00Z", "requiresPuck": true, "isOneShot": false}, "#
      + #""openedAt": "2026-03-30T03:30:00Z", "closedAt": "2026-03-30T03:41:00Z", "bypassCount": 3, "rings": 4}, "#
      + #""schemaVersion": 1}"#
    try FileManager.default.createDirectory(atPath: dock.stateDirectory, withIntermediateDirectories: true)
    try String(repeating: line + "\n", count: 6000).write(
      toFile: dock.stateDirectory + "/history.jsonl", atomically: true, encoding: .utf8)
    try dock.start()
    // Pages of the most one request may ask for (1000), each bigger than a socket buffer.
    var received = 0
    var before: [String] = []
    for _ in 0..<7 {
      let result = try dock.ctl(["history", "--json", "--limit", "1000"] + before)
      #expect(result.status == 0)
      let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
      #expect((object?["history"] as? [Any])?.count == 1000)
      #expect(result.stdout.utf8.count > 250_000, "bigger than a socket buffer")
      received += (object?["history"] as? [Any])?.count ?? 0
      guard let next = object?["nextBefore"] as? Int else { break }
      before = ["--before", "\(next)"]
    }
    #expect(received == 6000)
  }

  @Test("a configured buzzer on a chip that is not there is a fault in status, and the alarm still rings")
  func missingGPIOChip() throws {
    let dock = try DaemonHarness(
      config: "[buzzer]\nchip = gpiochip9\nline = 18\n[led]\nchip = gpiochip9\nline = 27\n")
    try dock.start()
    let devices = try dock.status()["devices"] as? [[String: Any]] ?? []
    let buzzer = devices.first { $0["name"] as? String == "buzzer" }
    #expect(buzzer?["state"] as? String == "fault")
    #expect((buzzer?["detail"] as? String)?.contains("gpiochip9") == true)
    #expect(devices.first { $0["name"] as? String == "button" }?["state"] as? String == "absent")
    #expect(dock.log.contains("<3>buzzer:"))
    try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    try waitUntil(timeout: 5, "audio carries the ring") { try dock.audio!.peak(seconds: 0.4) > 1000 }
  }

  @Test("systemd hears READY=1, a STATUS= line and WATCHDOG=1 over NOTIFY_SOCKET")
  func systemdNotify() throws {
    let dock = try DaemonHarness(audio: false)
    let listener = try NotifyListener(path: dock.directory.appendingPathComponent("notify").path)
    dock.environment["NOTIFY_SOCKET"] = listener.path
    dock.environment["WATCHDOG_USEC"] = "400000"
    try dock.start()
    var messages: [String] = []
    try waitUntil(timeout: 5, "READY, STATUS and WATCHDOG arrive") {
      messages += listener.drain()
      let all = messages.joined(separator: "\n")
      return all.contains("READY=1") && all.contains("STATUS=") && all.contains("WATCHDOG=1")
    }
    #expect(messages.joined(separator: "\n").contains("STATUS=no alarm scheduled"))
  }
}

/// A datagram socket standing in for systemd's notify socket.
final class NotifyListener {
  let path: String
  private let fd: Int32

  init(path: String) throws {
    self.path = path
    fd = unixSocket(SOCK_DGRAM, path: path, bind: true)
    guard fd >= 0 else { throw HarnessError("bind \(path) failed") }
  }

  deinit { close(fd) }

  /// Every datagram waiting now.
  func drain() -> [String] {
    var messages: [String] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
      guard count > 0 else { return messages }
      messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
    }
  }
}
