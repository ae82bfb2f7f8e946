import Foundation
import GPIODoubles
import Glibc
import PuckCore
import PuckDaemon
import PuckDevices
import PuckStorage
import PuckSystem
import Testing

/// Issue 13 item 4 on the manual clock (docs/DESIGN.md W17): `awake_check` after a scan ended
/// a wake-up, the dock asks; the button or `puckctl awake` answers; no answer within a minute
/// opens the wake-up again and it rings until the next scan. Recorded either way; survives a
/// restart.
@Suite("the wake-up check", .serialized)
struct AwakeCheckTests {
  private static let config = "[enforcement]\nawake_check = 5min\nretry_delay = 60s\n"

  /// A dock whose 06:01 alarm rang and was ended by the puck at 06:01:10.
  private func scannedDock(config: String = AwakeCheckTests.config) throws -> ManualDock {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z", config: config)
    try dock.start()
    try dock.addAlarm(6, 1, days: Set(Weekday.allCases))
    try dock.advance(to: "2026-03-02T06:01:10Z")
    try #require(dock.bench.reader).present(dock.puck)
    try dock.settle()
    try #require(try dock.guards().isEmpty)
    return dock
  }

  @Test(
    "no answer: at 5 min it asks, a minute later the wake-up opens again and rings; the next scan ends it")
  func unansweredReopens() throws {
    let dock = try scannedDock()
    var status = try dock.status()
    #expect(
      try status.awakeCheck?.askAt == Instant(unixSeconds: ManualDock.unixSeconds("2026-03-02T06:06:10Z")))
    #expect(status.awakeCheck?.answerBy == nil)
    #expect(try dock.request("awake").failure?.kind == .refused, "nothing asked yet")
    try dock.advance(to: "2026-03-02T06:06:10Z")
    status = try dock.status()
    #expect(status.awakeCheck?.answerBy == dock.now.adding(seconds: 60))
    #expect(status.guards.isEmpty)
    try dock.advance(.seconds(59))
    #expect(try dock.guards().isEmpty)
    try dock.advance(.seconds(1))
    status = try dock.status()
    #expect(status.guards.first?.ringing == true, "opened again and ringing")
    #expect(status.awakeCheck == nil)
    #expect(try #require(dock.bench.audio).isPlaying)
    try #require(dock.bench.reader).present(dock.puck)
    try dock.settle()
    #expect(try dock.guards().isEmpty)
    let outcomes = try dock.history().map(\.outcome)
    #expect(outcomes.suffix(3) == [.woke, .reopened, .woke], "\(outcomes)")
    #expect(try dock.status().awakeCheck != nil, "the new scan is checked again")
  }

  @Test(
    "no answer while the same alarm rings again (moved to 06:07): nothing reopens, and the check's end is saved"
  )
  func unansweredWhileTheAlarmRings() throws {
    let dock = try scannedDock()
    let id = try #require(try dock.request("alarm", "list").alarms?.first?.alarm.id)
    let moved = try dock.request(ControlRequest(editing: id, AlarmEdit(time: WallTime(hour: 6, minute: 7))))
    try #require(moved.ok == true, "\(moved)")
    try dock.advance(to: "2026-03-02T06:07:10Z")
    let status = try dock.status()
    #expect(status.guards.count == 1 && status.guards.first?.ringing == true, "06:07 rings, once")
    #expect(status.awakeCheck == nil)
    #expect(try dock.history().last?.outcome == .reopened)
    // The machine opens nothing, so it asks for no save: the check's end is saved all the same.
    let disk = try StateDirectory(path: dock.stateDirectory).load("guards.json", as: EnforcementRecord.self)
    #expect(disk.value?.awakeCheck == nil, "no check left in guards.json to ask again after a crash")
  }

  @Test(
    "without a buzzer the question is asked on the speaker: the cue's beats, then the speaker is let go; the ring follows"
  )
  func askedOnTheSpeaker() throws {
    let dock = try scannedDock()
    let audio = try #require(dock.bench.audio)
    let cue = try #require(AlarmTone.cue(.awakeCheck))
    let soundsBefore = audio.sounds.count
    try dock.advance(to: "2026-03-02T06:06:10Z")
    #expect(
      audio.sounds.count == soundsBefore + 1 && audio.sounds.last == cue, "the four beeps, not the ring")
    #expect(audio.calls.last == .start(volume: 0.3, ramp: nil), "at the ring's starting volume")
    #expect(audio.isPlaying)
    try dock.advance(cue.duration)
    #expect(!audio.isPlaying && audio.calls.last == .stop, "the cue played once, and the speaker is free")
    try dock.advance(to: "2026-03-02T06:07:10Z")
    #expect(audio.isPlaying && audio.sounds.last == AlarmTone.sound, "no answer: the ring")
  }

  @Test("a reload during the cue checks the audio device once the cue has played, not never")
  func aReloadDuringTheCueChecksTheDeviceAfterIt() throws {
    let dock = try scannedDock()
    try dock.advance(to: "2026-03-02T06:06:10Z")
    try #require(try #require(dock.bench.audio).isPlaying, "the cue plays")
    try #require(dock.daemon).reload()
    try dock.settle()
    try dock.advance(try #require(AlarmTone.cue(.awakeCheck)).duration)
    let audio = try dock.status().devices.first { $0.name == "audio" }
    #expect(audio?.detail == "default opens", "checked after the cue: \(String(describing: audio))")
  }

  @Test("a ring that starts during a cue cuts it short and rings in its place")
  func aRingCutsTheCueShort() throws {
    let dock = try scannedDock(config: Self.config + "[audio]\nstart_volume = 40%\n")
    let id = try #require(try dock.request("alarm", "list").alarms?.first?.alarm.id)
    // Another alarm falls due a second after the question.
    try #require(
      try dock.request(ControlRequest(editing: id, AlarmEdit(time: WallTime(hour: 6, minute: 6, second: 11))))
        .ok == true)
    let audio = try #require(dock.bench.audio)
    try dock.advance(to: "2026-03-02T06:06:10Z")
    #expect(audio.sounds.last == AlarmTone.cue(.awakeCheck))
    try dock.advance(to: "2026-03-02T06:06:11Z")
    let cut = Array(audio.calls.suffix(2))
    #expect(cut.first == .stop, "the cue stopped first: \(audio.calls)")
    guard case .start(let volume, _)? = cut.last else {
      Issue.record("the ring did not start: \(audio.calls)")
      return
    }
    #expect(volume == 0.4, "the ring's own start, not the cue's")
    #expect(audio.isPlaying && audio.sounds.last == AlarmTone.sound)
    try dock.advance(.seconds(3))
    #expect(audio.isPlaying, "the cue's end leaves the ring alone")
  }

  @Test("puckctl awake answers while the dock asks: recorded, and nothing opens again")
  func answeredByCommand() throws {
    let dock = try scannedDock()
    try dock.advance(to: "2026-03-02T06:06:30Z")
    let reply = try dock.request("awake")
    #expect(reply.ok == true, "\(reply)")
    #expect(try dock.status().awakeCheck == nil)
    try dock.advance(.seconds(300))
    #expect(try dock.guards().isEmpty)
    #expect(try dock.history().map(\.outcome).suffix(2) == [.woke, .awake])
  }

  @Test("the dock button answers it, and the question is chirped on the buzzer")
  func answeredByButton() throws {
    let buzzer = RecordingOutputLine(clock: ManualLineClock())
    let button = ScriptedInputLine(blocking: true)
    let dock = try ManualDock(
      at: "2026-03-02T06:00:00Z", config: Self.config + "[buzzer]\nline = 18\n[button]\nline = 17\n")
    dock.gpio = GPIOOpeners(buzzer: buzzer.opener, button: button.opener)
    try dock.start()
    try dock.addAlarm(6, 1, days: Set(Weekday.allCases))
    try dock.advance(to: "2026-03-02T06:01:10Z")
    try #require(dock.bench.reader).present(dock.puck)
    try dock.settle()
    let onsBefore = buzzer.drives.filter(\.on).count
    try dock.advance(to: "2026-03-02T06:06:10Z")
    try waitFor("the four-beep question") { buzzer.drives.filter(\.on).count >= onsBefore + 4 }
    let pressed = MonotonicInstant.now()
    button.push([GPIOEdge(.rising, at: pressed), GPIOEdge(.falling, at: pressed + .milliseconds(200))])
    try waitFor("the press answers") {
      try? dock.settle()
      return (try? dock.status().awakeCheck) == nil
    }
    #expect(try dock.history().last?.outcome == .awake)
    #expect(try dock.guards().isEmpty, "a press with nothing ringing is no bypass")
  }

  @Test("a restart keeps the waiting check; one that had asked asks again from the restart")
  func survivesARestart() throws {
    let dock = try scannedDock()
    dock.stop()
    try dock.start()
    #expect(try dock.status().awakeCheck?.askAt != nil)
    try dock.advance(to: "2026-03-02T06:06:10Z")
    #expect(try dock.status().awakeCheck?.answerBy != nil)
    dock.stop()
    try dock.advance(.seconds(120))
    try dock.start()
    let status = try dock.status()
    #expect(status.guards.isEmpty, "not opened while nobody could answer")
    #expect(status.awakeCheck?.askAt == dock.now)
    #expect(status.awakeCheck?.answerBy == dock.now.adding(seconds: 60), "asked again at start")
    try dock.advance(.seconds(60))
    #expect(try dock.guards().first?.ringing == true)
  }

  @Test("off by default: a scan starts no check")
  func offByDefault() throws {
    let dock = try scannedDock(config: "")
    #expect(try dock.status().awakeCheck == nil)
    try dock.advance(.seconds(3600))
    #expect(try dock.guards().isEmpty)
  }
}
