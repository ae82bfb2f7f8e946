import PuckCore
import Testing

@testable import PuckDevices

/// Issue 33 item 1 on the manual clock: the daemon hands the mixer to the output from a wake-up's
/// first ring until the wake-up ends, through a rehearsal, and reads it back in the pre-flight
/// check (docs/DESIGN.md V12). What the output does with the card is `MixerTests`' (end to end).
@Suite("the mixer held while it rings", .serialized)
struct MixerHoldTests {
  private static let quickRetries = """
    [enforcement]
    retry_delay = 5min
    ring_timeout = 2min

    """

  @Test(
    "a wake-up holds the mixer from its first ring, through a stop and its retry, and lets go when the puck ends it"
  )
  func heldForTheWholeWakeUp() throws {
    let dock = try ManualDock.ringing(config: Self.quickRetries + "[audio]\nmin_mixer_volume = 80%\n")
    let audio = try #require(dock.bench.audio)
    #expect(audio.mixerCalls == [.hold(minimumVolume: 80)], "held before the ring")
    #expect(try dock.stopOnceHeard().ok == true)
    #expect(audio.holdsMixer, "between the rings of one wake-up it stays raised")
    // The stop after 20 s of ring bought 10 s of quiet (docs/DESIGN.md W18).
    try dock.advance(.seconds(10))
    #expect(try dock.guards().first?.ringing == true)
    #expect(audio.holdsMixer)
    dock.bench.reader?.present(dock.puck)
    #expect(try dock.guards().isEmpty)
    #expect(audio.mixerCalls.last == .release, "put back when the wake-up ends: \(audio.mixerCalls)")
  }

  @Test("a rehearsal holds the mixer while it rings and lets go after")
  func heldThroughARehearsal() throws {
    let dock = try ManualDock()
    try dock.start()
    let test = try dock.open("test", "--seconds", "2", "--scan-seconds", "0")
    let audio = try #require(dock.bench.audio)
    #expect(audio.mixerCalls == [.hold(minimumVolume: 70)], "the default floor, 70 %")
    try dock.advance(.seconds(2))
    _ = try test.replies()
    #expect(audio.mixerCalls == [.hold(minimumVolume: 70), .release])
  }

  @Test("SIGTERM mid-ring puts the mixer back before puckd exits")
  func shutdownPutsItBack() throws {
    let dock = try ManualDock.ringing()
    let audio = try #require(dock.bench.audio)
    dock.stop()
    #expect(audio.mixerCalls == [.hold(minimumVolume: 70), .release])
  }

  @Test("the check names a muted or low control and says it will be raised; it passes")
  func lowControlsAreNamed() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    dock.bench.audio?.setMixer(
      .found(
        control: "hw:CARD=Headphones",
        low: [
          MixerControl(name: "PCM", switches: [false], volumes: [0], range: 0...100),
          MixerControl(name: "Speaker", switches: [], volumes: [40, 40], range: 0...100),
        ]))
    let reply = try dock.request("check")
    let report = try #require(reply.check)
    let mixer = try #require(report.parts.first { $0.name == "mixer" }, "\(report.parts.map(\.name))")
    #expect(mixer.ok)
    #expect(
      mixer.detail.hasPrefix(
        "hw:CARD=Headphones: PCM muted, 0 %; Speaker 40 % — will be raised when it rings"),
      "\(mixer.detail)")
    #expect(report.passed)
    #expect(try dock.status().protected)
  }

  @Test("a mixer that cannot be opened fails the check by name, and status says NOT PROTECTED")
  func unreachableMixerFails() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    let refused = ALSAError(code: -111, function: "snd_ctl_open", detail: "PulseAudio: Unable to connect")
    dock.bench.audio?.setMixer(.unreachable(MixerFault(control: "pulse", error: refused)))
    let reply = try dock.request("check")
    #expect(reply.ok == false)
    let report = try #require(reply.check)
    let mixer = try #require(report.parts.first { $0.name == "mixer" })
    #expect(!mixer.ok)
    #expect(mixer.detail.hasPrefix("the mixer pulse: snd_ctl_open:"), "\(mixer.detail)")
    let status = try dock.status()
    #expect(!status.protected)
    #expect(status.reasonCodes?.contains(.checkFailed(parts: ["mixer"])) == true, "\(status.reasons)")

    // Once it opens, the next check passes again (after the failed check's cue has played).
    dock.bench.audio?.setMixer(.noMixer)
    try dock.advance(.seconds(5))
    let again = try #require(try dock.request("check").check)
    #expect(again.passed)
    #expect(again.parts.first { $0.name == "mixer" }?.detail.contains("has no mixer") == true)
  }
}
