import Foundation
import PuckCore
import Testing

/// Issue 26, "what a configured dock must tell": a buzzer, button or LED the config names that
/// fails is a warning with its next step, never `absent`, and never a reason against protection
/// unless nothing else can ring; the pre-flight check shows it FAILED and still passes.
@Suite struct StatusWarningTests {
  private static let next =
    "there is no /dev/gpiochip9: gpiodetect lists the chips it has: gpiochip0; set chip = to one of "
    + "them in [buzzer] of /etc/puckalarm/puckd.conf"

  /// A protected dock whose buzzer, button and LED are as given.
  private func snapshot(
    buzzer: DeviceHealth.State = .absent, button: DeviceHealth.State = .absent,
    led: DeviceHealth.State = .absent,
    audio: DeviceHealth.State = .ok
  ) -> StatusSnapshot {
    func gpio(_ device: DockDevice, _ state: DeviceHealth.State) -> DeviceHealth {
      switch state {
      case .fault:
        DeviceHealth(
          device, state: .fault, detail: "cannot open gpiochip9: No such file or directory", next: Self.next)
      case .absent:
        DeviceHealth(device, state: .absent, detail: "not configured (no [\(device.rawValue)] section)")
      case .ok, .simulated: DeviceHealth(device, state: state, detail: "gpiochip0 line 22: off")
      }
    }
    return StatusSnapshot(
      devices: [
        DeviceHealth(.reader, state: .ok, detail: "PN532 v1.6 on pn532_uart:/dev/serial0"),
        DeviceHealth(
          .audio, state: audio, detail: audio == .ok ? "idle on default" : "cannot open 'default'"),
        gpio(.buzzer, buzzer), gpio(.button, button), gpio(.led, led),
      ],
      pairedTag: "…:3f:9a", hasEnabledAlarm: true,
      nextAlarm: .init(
        id: 1, time: WallTime(hour: 6, minute: 30), recurrence: .weekly(Set(Weekday.allCases)),
        requiresPuck: true),
      clockSynchronized: true)
  }

  @Test("a failed buzzer beside working audio is a warning with its next step, and the dock stays protected")
  func failedBuzzerWarns() throws {
    let verdict = ProtectionVerdict(snapshot(buzzer: .fault))
    #expect(verdict.protected, "\(verdict.reasons)")
    #expect(
      verdict.warnings == [
        .partFailed(
          device: .buzzer, detail: "cannot open gpiochip9: No such file or directory", next: Self.next)
      ])
    let warning = try #require(verdict.warnings.first)
    #expect(warning.code == "part-failed")
    #expect(warning.next == Self.next)
    #expect(
      warning.text
        == "buzzer FAILED (the alarm rings on the audio alone): cannot open gpiochip9: No such file or directory"
    )
  }

  @Test("a failed button and LED warn too, each saying what still works")
  func failedButtonAndLEDWarn() {
    let verdict = ProtectionVerdict(snapshot(button: .fault, led: .fault))
    #expect(verdict.protected)
    #expect(verdict.warnings.map(\.code) == ["part-failed", "part-failed"])
    #expect(
      verdict.warnings.first?.text.hasPrefix(
        "button FAILED (a press does not silence the ring; puckctl stop still does)") == true)
    #expect(verdict.warnings.last?.text.hasPrefix("LED FAILED (the dock shows no light)") == true)
  }

  @Test("parts the config does not name are absent: no warning")
  func absentPartsDoNotWarn() {
    #expect(ProtectionVerdict(snapshot()).warnings.isEmpty)
    #expect(ProtectionVerdict(snapshot(buzzer: .ok)).warnings.isEmpty)
  }

  @Test("with nothing able to ring it is not protected: the reason, and the buzzer's warning with its step")
  func nothingCanRing() {
    let verdict = ProtectionVerdict(snapshot(buzzer: .fault, audio: .fault))
    #expect(!verdict.protected)
    #expect(verdict.reasons == [.nothingCanRing(audioDetail: "cannot open 'default'")])
    #expect(verdict.warnings.map(\.next) == [Self.next])
  }

  @Test("failed audio beside a working buzzer is a warning, not a reason")
  func failedAudioBesideABuzzer() {
    let verdict = ProtectionVerdict(snapshot(buzzer: .ok, audio: .fault))
    #expect(verdict.protected)
    #expect(verdict.warnings == [.partFailed(device: .audio, detail: "cannot open 'default'", next: nil)])
    #expect(verdict.warnings.first?.text.hasPrefix("audio FAILED (only the buzzer rings)") == true)
  }

  @Test("status --json carries warnings with code, device, detail, next and text; a newer code still decodes")
  func json() throws {
    let warning = StatusWarning.partFailed(device: .buzzer, detail: "busy", next: "stop 'foo'")
    let object = try #require(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(warning)) as? [String: String])
    #expect(
      object == [
        "code": "part-failed", "device": "buzzer", "detail": "busy", "next": "stop 'foo'",
        "text": "buzzer FAILED (the alarm rings on the audio alone): busy",
      ])
    #expect(try JSONDecoder().decode(StatusWarning.self, from: JSONEncoder().encode(warning)) == warning)
    let newer = try JSONDecoder().decode(
      StatusWarning.self, from: Data(#"{"code":"sd-card-wearing","text":"the SD card wears out","x":1}"#.utf8)
    )
    #expect(newer == .unrecognized(code: "sd-card-wearing", text: "the SD card wears out", next: nil))
    #expect(newer.text == "the SD card wears out")

    var status = DockStatus(
      protected: true, reasons: [], simulated: false, nextAlarm: nil, nextAlarmAt: nil, guards: [],
      pairedTag: nil,
      devices: [DeviceHealth(.buzzer, state: .fault, detail: "busy", next: "stop 'foo'")],
      clockSynchronized: nil, problems: [], missed: [], zone: "UTC")
    status.warnings = [warning]
    let reply = try ControlWire.decodeReply(ControlWire.encode(ControlReply(ok: true, status: status)))
    #expect(reply.status?.warnings == [warning])
    #expect(reply.status?.devices.first?.next == "stop 'foo'")
    #expect(reply.status?.devices.first?.state == .fault, "the wire keeps the code 'fault'")
  }

  @Test("the check: a warning part is FAILED, the check passes, and its verdict says so")
  func checkVerdict() throws {
    let parts = [
      PreflightReport.Part("reader", ok: true, "PN532 answers"),
      PreflightReport.Part("buzzer", ok: false, "cannot open gpiochip9", next: Self.next, severity: .warning),
      PreflightReport.Part("clock", ok: true, "synchronised"),
    ]
    var report = PreflightReport(at: Instant(unixSeconds: 0), trigger: .request, parts: parts)
    #expect(report.passed)
    #expect(report.failures.isEmpty)
    #expect(report.warnings.map(\.name) == ["buzzer"])
    #expect(report.parts[1].line == "buzzer: FAILED — cannot open gpiochip9")
    #expect(
      report.verdict
        == "pre-flight check passed, with a WARNING: buzzer FAILED (the alarm rings without it; fix before relying on it):"
    )
    // The JSON says which failed part is only a warning; other parts carry no severity.
    let json = try #require(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
    let encoded = try #require(json["parts"] as? [[String: Any]])
    #expect(encoded[1]["severity"] as? String == "warning")
    #expect(encoded[1]["next"] as? String == Self.next)
    #expect(encoded[0]["severity"] == nil)

    report.parts.append(PreflightReport.Part("audio", ok: false, "cannot open 'default'"))
    #expect(!report.passed)
    #expect(report.failures.map(\.name) == ["audio"])
    #expect(report.verdict == "pre-flight check FAILED:")
    report.parts = [parts[0]]
    #expect(report.verdict == "pre-flight check passed:")
  }

  @Test("a part from an older daemon without a severity is a failure")
  func olderPartIsAFailure() throws {
    let part = try JSONDecoder().decode(
      PreflightReport.Part.self, from: Data(#"{"name":"buzzer","ok":false,"detail":"gone"}"#.utf8))
    #expect(!part.isWarning)
    #expect(PreflightReport(at: Instant(unixSeconds: 0), trigger: .start, parts: [part]).failures == [part])
  }
}
