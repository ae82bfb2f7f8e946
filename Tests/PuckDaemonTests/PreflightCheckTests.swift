import Foundation
import GPIODoubles
import Glibc
import PuckCore
import PuckDaemon
import PuckDevices
import Testing

/// Issue 13 item 1 on the manual clock: the pre-flight check reads back every part the next
/// alarm needs (docs/DESIGN.md R5), runs at start, `check_before` ahead of each alarm and on
/// `puckctl check`, and a failure before an alarm is noticed: status, the chirp, the LED.
@Suite("the pre-flight check", .serialized)
struct PreflightCheckTests {
  /// `puckctl check` over the socket.
  private func check(_ dock: ManualDock) throws -> (reply: ControlReply, report: PreflightReport) {
    let reply = try dock.request("check")
    return (reply, try #require(reply.check))
  }

  private func part(_ name: String, of report: PreflightReport) throws -> PreflightReport.Part {
    try #require(report.parts.first { $0.name == name }, "\(report.parts.map(\.name))")
  }

  @Test("every part passes on a healthy dock: reply, status and the timer as the kernel holds it")
  func healthyDockPasses() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    let (reply, report) = try check(dock)
    #expect(reply.ok == true)
    #expect(report.passed, "\(report.parts.map(\.line))")
    #expect(report.trigger == .request)
    #expect(
      report.parts.map(\.name) == [
        "reader", "pairing", "audio", "mixer", "sound", "buzzer", "clock", "timer",
      ])
    #expect(try part("timer", of: report).detail.contains("06:30"))
    #expect(try part("pairing", of: report).detail.contains(dock.puck.masked))
    let status = try dock.status()
    #expect(status.protected, "\(status.reasons)")
    #expect(status.check == report)
  }

  @Test("the check runs at start and again check_before ahead of the alarm, not in between")
  func runsAtStartAndBeforeTheAlarm() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z", config: "[enforcement]\ncheck_before = 15min\n")
    try dock.start()
    #expect(try dock.status().check?.trigger == .start)
    try dock.addAlarm(7, 0, days: Set(Weekday.allCases))
    try dock.advance(to: "2026-03-02T06:44:59Z")
    #expect(try dock.status().check?.trigger == .start, "not yet")
    try dock.advance(.seconds(1))
    let status = try dock.status()
    #expect(status.check?.trigger == .beforeAlarm)
    #expect(status.check?.at == dock.now)
  }

  @Test("the timer lost by the kernel: status is not protected from the read-back; the check re-arms it")
  func timerNotArmed() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    #expect(try dock.status().protected)
    dock.clock.loseDeadlines()
    var status = try dock.status()
    #expect(!status.protected)
    #expect(status.reasonCodes?.contains { $0.code == "timer-not-armed" } == true, "\(status.reasons)")

    let (reply, report) = try check(dock)
    #expect(reply.ok == false)
    let timer = try part("timer", of: report)
    #expect(!timer.ok)
    #expect(timer.detail.contains("not armed in the kernel"))
    #expect(timer.detail.contains("armed again and read back"))
    status = try dock.status()
    #expect(status.reasonCodes?.contains { $0.code == "timer-not-armed" } == false, "re-armed")
    // The alarm rings on time all the same.
    try dock.advance(to: "2026-03-02T06:30:00Z")
    #expect(try dock.guards().first?.ringing == true)
  }

  @Test("a reader that does not answer fails the check; when it comes back a quiet re-check clears it")
  func readerFailsAndRecovers() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    let reader = try #require(dock.bench.reader)
    reader.report(DeviceCondition(.fault, "pn532_uart:/dev/ttyUSB0 does not answer"))
    try dock.settle()
    let (_, report) = try check(dock)
    #expect(try !part("reader", of: report).ok)
    #expect(try part("reader", of: report).detail.contains("does not answer"))
    var status = try dock.status()
    #expect(status.reasonCodes?.contains(.checkFailed(parts: ["reader"])) == true, "\(status.reasons)")

    reader.report(DeviceCondition(.ok, "PN532 v1.6 on pn532_uart:/dev/ttyUSB0"))
    try dock.settle()
    status = try dock.status()
    #expect(status.check?.passed == true)
    #expect(status.protected, "\(status.reasons)")
  }

  @Test("clients that hang up while a check waits for answers are let go at once, with their descriptors")
  func closedClientsAreLetGo() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try #require(dock.bench.reader).stopAnsweringChecks()
    let waiting = try dock.open("check")
    // Each connection's deadline is a timer of the dock's clock, holding an eventfd.
    let before = dock.clock.timerCount
    // A member looping connect, check, hang up while the reader keeps the check waiting (5 s).
    for _ in 0..<40 {
      try dock.open("check").hangUp()
      try dock.settle()
    }
    // A hang-up the loop has not seen yet (a loaded machine, a sanitizer) is seen within a few
    // more turns; a timer held for good stays held however many pass.
    for _ in 0..<100 where dock.clock.timerCount != before {
      usleep(10_000)
      try dock.settle()
    }
    #expect(
      dock.clock.timerCount == before, "no timer, and so no descriptor, is held for a client that went away")
    try dock.advance(.seconds(5))
    let reply = try #require(try waiting.replies().last { $0.ok != nil })
    #expect(reply.check?.parts.contains { $0.name == "reader" && !$0.ok } == true, "\(reply)")
  }

  @Test("the audio device missing fails the audio part; the rest still pass")
  func audioDeviceMissing() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    try #require(dock.bench.audio).setOpens(false)
    let (reply, report) = try check(dock)
    #expect(reply.ok == false)
    #expect(report.failures.map(\.name) == ["audio"])
    #expect(try part("audio", of: report).detail.contains("no such device"))
    #expect(dock.bench.audio?.sounds.isEmpty == true, "no cue on a speaker that does not open")
  }

  @Test("a loosened pairing file fails the check, and the paired tag still ends the wake-up")
  func pairingFileLoosened() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 1)
    #expect(chmod(dock.stateDirectory + "/pairing.json", 0o644) == 0)
    let (_, report) = try check(dock)
    let pairing = try part("pairing", of: report)
    #expect(!pairing.ok)
    #expect(pairing.detail.contains("still ends a wake-up"), "\(pairing.detail)")
    try dock.advance(.seconds(60))
    #expect(try dock.guards().first?.ringing == true)
    try #require(dock.bench.reader).present(dock.puck)
    try dock.settle()
    #expect(try dock.guards().isEmpty)
  }

  @Test("a remote reader offline fails its own part, by name")
  func remoteReaderOffline() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z", config: "[reader]\ndevice = none\n")
    try dock.start()
    #expect(try dock.request("reader", "add", "kitchen").ok == true)
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    try dock.settle()
    #expect(try check(dock).report.passed)
    try #require(dock.bench.remote("kitchen")).report(
      DeviceCondition(.fault, "kitchen: the reader node is offline (its last will)"))
    try dock.settle()
    let (_, report) = try check(dock)
    #expect(report.failures.map(\.name) == ["remote kitchen"])
    #expect(try part("remote kitchen", of: report).detail.contains("offline"))
  }

  @Test(
    "a failure before an alarm chirps the buzzer's check pattern and flickers the LED; a request chirps too")
  func failureIsNoticedOnTheDock() throws {
    let buzzer = RecordingOutputLine(clock: ManualLineClock())
    let led = RecordingOutputLine(clock: ManualLineClock())
    let dock = try ManualDock(
      at: "2026-03-02T06:00:00Z",
      config: "[buzzer]\nline = 18\n[led]\nline = 27\n[enforcement]\ncheck_before = 10min\n")
    dock.gpio = GPIOOpeners(buzzer: buzzer.opener, led: led.opener)
    try dock.start()
    dock.clock.setSynchronized(false)
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    try dock.advance(to: "2026-03-02T06:20:00Z")
    let status = try dock.status()
    #expect(status.check?.trigger == .beforeAlarm)
    #expect(status.check?.failures.map(\.name) == ["clock"])
    // The chirp runs on the buzzer's own thread: two 500 ms tones.
    try waitFor("two tones on the buzzer") { buzzer.drives.filter(\.on).count >= 2 }
    // And on the speaker, so a dock without a buzzer warns as loudly.
    #expect(try #require(dock.bench.audio).sounds.last == AlarmTone.cue(.checkFailed))
    #expect(status.devices.first { $0.name == "led" }?.detail.contains("flickering") == true)
    try waitFor("the LED flickers") { led.drives.filter(\.on).count >= 2 }
    #expect(try dock.guards().isEmpty, "nothing rings for a check")
  }

  @Test(
    "a buzzer, button and LED the config names that cannot be opened: FAILED with a next step, never absent; the check passes, the dock stays protected"
  )
  func configuredPartsThatCannotBeOpened() throws {
    let missingChip: GPIOOutputOpener = { settings throws(GPIOError) in
      throw GPIOError(function: "gpiod_chip_open", code: ENOENT, action: "cannot open \(settings.chip)")
    }
    let busy: GPIOInputOpener = { _ throws(GPIOError) in
      throw GPIOError(
        function: "gpiod_line_request_both_edges_events_flags", code: EBUSY,
        action: "cannot request gpiochip0 line 17 (GPIO17)", holder: "foo")
    }
    let dock = try ManualDock(
      at: "2026-03-02T06:00:00Z",
      config:
        "[buzzer]\nchip = gpiochip99\nline = 22\n[button]\nline = GPIO17\n[led]\nchip = gpiochip99\nline = 27\n"
    )
    dock.gpio = GPIOOpeners(buzzer: missingChip, led: missingChip, button: busy)
    try dock.start()
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    // The button's reader thread reports its fault.
    try waitFor("the button's fault") {
      try dock.settle()
      return try dock.status().devices.first { $0.name == "button" }?.state == .fault
    }
    let status = try dock.status()
    #expect(status.protected, "the audio still rings: \(status.reasons)")
    let devices = Dictionary(uniqueKeysWithValues: status.devices.map { ($0.name, $0) })
    for name in ["buzzer", "button", "led"] {
      #expect(devices[name]?.state == .fault, "\(name) is FAILED, never absent: \(status.devices)")
    }
    let config = dock.directory + "/puckd.conf"
    let buzzerNext = try #require(devices["buzzer"]?.next)
    #expect(buzzerNext.contains("no /dev/gpiochip99"), "\(buzzerNext)")
    // Which chips there are depends on the machine; the file and the section are named either way.
    #expect(buzzerNext.contains("[buzzer]"))
    #expect(buzzerNext.contains(config))
    #expect(
      devices["button"]?.next?.hasPrefix(
        "the line GPIO17 is held by \"foo\": stop that program (or remove the config.txt overlay that claims the pin), "
          + "or choose another free line: line = in [button] of \(config)") == true,
      "\(devices["button"]?.next ?? "")")
    #expect(devices["led"]?.next?.contains("[led]") == true && devices["led"]?.next?.contains(config) == true)
    #expect(
      status.warnings?.map(\.code) == ["part-failed", "part-failed", "part-failed"],
      "\(status.warnings ?? [])")
    #expect(status.warnings?.first?.next == buzzerNext)

    let (reply, report) = try check(dock)
    #expect(reply.ok == true, "a part the alarm does without does not fail the check")
    #expect(report.passed)
    #expect(report.warnings.map(\.name) == ["buzzer", "button", "led"])
    let buzzer = try part("buzzer", of: report)
    #expect(!buzzer.ok)
    #expect(buzzer.severity == .warning)
    #expect(buzzer.next == buzzerNext)
    #expect(buzzer.detail.hasPrefix("cannot open gpiochip99: No such file or directory"))
    #expect(try part("led", of: report).next?.contains("[led]") == true)
    let after = try dock.status()
    #expect(after.protected, "\(after.reasons)")
    #expect(after.reasonCodes?.contains { $0.code == "check-failed" } == false)
  }

  @Test("parts the config does not name stay absent: no button or LED part, the buzzer 'not configured'")
  func unnamedPartsAreAbsent() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    let status = try dock.status()
    for name in ["buzzer", "button", "led"] {
      #expect(status.devices.first { $0.name == name }?.state == .absent)
    }
    #expect(status.warnings == [])
    let (_, report) = try check(dock)
    #expect(!report.parts.map(\.name).contains("button"))
    #expect(!report.parts.map(\.name).contains("led"))
    #expect(try part("buzzer", of: report).ok)
    #expect(report.warnings.isEmpty)
  }
}
