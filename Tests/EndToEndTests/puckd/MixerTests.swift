import Foundation
import Glibc
import Testing

private let paired = "04:A2:3B:11:22:33:44"

/// Issue 33 item 1, as a sleeper would try it: the mixer of the card the alarm plays on is muted
/// or turned down, before the alarm or mid-ring, the way `alsamixer` does it. Here the card is a
/// PulseAudio null sink, played and mixed through alsa-lib's `pulse` PCM and control device
/// (`DaemonHarness` points the dock's `pulse` control device at its own sink: `amixer -D pulse`
/// mutes the sink itself, so its monitor records silence); puckd must be heard each time and
/// put the mixer back afterwards (docs/DESIGN.md V12).
@Suite("puckd owns its mixer while it rings", .serialized)
struct MixerTests {
  /// A puckd whose `[audio] device` is `pulse`, its own null sink.
  private func dock() throws -> DaemonHarness {
    let dock = try DaemonHarness()
    let config = try String(contentsOfFile: dock.configPath, encoding: .utf8)
    try #require(config.contains("device = pulse\n"), "\(config)")
    return dock
  }

  /// `amixer -D pulse ARGS`, as the sleeper types it, with the dock's ALSA configuration.
  @discardableResult
  private func amixer(_ dock: DaemonHarness, _ arguments: String...) throws -> String {
    let environment = ["PULSE_SERVER=\(PulseServer.shared.address)", "HOME=\(dock.home)"]
    let result = try runExternal("/usr/bin/env", environment + ["amixer", "-D", "pulse"] + arguments)
    guard result.status == 0 else { throw HarnessError("amixer \(arguments) failed: \(result.stderr)") }
    return result.stdout
  }

  /// `Master`'s state as `amixer` shows it: `[off]` or `[on]` and the percentage of each channel.
  private func master(_ dock: DaemonHarness) throws -> String {
    let shown = try amixer(dock, "sget", "Master")
    let states = shown.split(separator: "\n").filter { $0.contains("Playback") && $0.contains("[") }
    return states.map { $0.split(separator: "[", maxSplits: 1).last.map { "[" + $0 } ?? "" }.joined(
      separator: " | ")
  }

  /// `master` for a message.
  private func shown(_ dock: DaemonHarness) -> String { (try? master(dock)) ?? "unreadable" }

  /// Whether the sink hears the ring within `timeout` (a peak above 1000 in a 0.3 s recording).
  private func heard(_ dock: DaemonHarness, within timeout: Double = 5) -> Bool {
    (try? waitUntil(timeout: timeout, "the ring is heard") { try dock.audio!.peak(seconds: 0.3) > 1000 })
      != nil
  }

  @Test(
    "muted before the alarm, and muted again mid-ring: the ring is heard each time; the scan puts it back")
  func mutedBeforeAndMidRing() throws {
    let dock = try dock()
    try dock.start()
    try dock.pair(paired)
    try amixer(dock, "sset", "Master", "40%", "mute")
    let builders = try master(dock)
    #expect(builders.contains("[off]") && builders.contains("[40%]"), "\(builders)")
    try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    #expect(heard(dock), "a muted mixer silenced the alarm: \(shown(dock))")
    let raised = try master(dock)
    #expect(raised.contains("[on]") && raised.contains("[70%]"), "raised to min_mixer_volume: \(raised)")

    // A child presses mute mid-ring.
    try amixer(dock, "sset", "Master", "mute")
    let muted = try master(dock)
    #expect(muted.contains("[off]"), "\(muted)")
    try waitUntil(timeout: 5, "the mixer is raised again") { try master(dock).contains("[on]") }
    #expect(heard(dock), "muted mid-ring, the alarm stayed silent")
    #expect(dock.log.contains("the mixer pulse was low: Master muted"), "\(dock.log)")

    #expect(try dock.ctl("scan", paired).status == 0)
    #expect(try dock.guards().isEmpty)
    try waitUntil(timeout: 5, "the builder's mixer is put back") { try master(dock) == builders }
  }

  @Test("turned down to 0 %: a rehearsal (puckctl test) is heard, and the mixer is 0 % again after")
  func zeroPercentRehearsal() throws {
    let dock = try dock()
    try dock.start()
    try amixer(dock, "sset", "Master", "0%", "unmute")
    let builders = try master(dock)
    #expect(builders.contains("[0%]") && builders.contains("[on]"), "\(builders)")
    let rehearsal = Process()
    rehearsal.executableURL = Binaries.url("puckctl")
    rehearsal.arguments = ["--socket", dock.socketPath, "test", "--seconds", "3", "--scan-seconds", "0"]
    rehearsal.standardOutput = FileHandle.nullDevice
    try rehearsal.spawn()
    #expect(heard(dock), "a mixer at 0 % silenced the rehearsal: \(shown(dock))")
    rehearsal.waitUntilExit()
    try waitUntil(timeout: 5, "the mixer is put back to 0 %") { try master(dock) == builders }
  }

  @Test("the check names a muted control with its state and says it will be raised when it rings")
  func checkNamesTheMutedControl() throws {
    let dock = try dock()
    try dock.start()
    try amixer(dock, "sset", "Master", "25%", "mute")
    let check = try dock.ctl("check").stdout
    #expect(
      check.contains(
        "mixer: ok — pulse: Master muted, 25 % — will be raised when it rings"),
      "\(check)")
    let after = try master(dock)
    #expect(after.contains("[off]"), "the check only reads: \(after)")
  }

  @Test("a mixer that cannot be opened fails the check by name, and status says NOT PROTECTED")
  func unreachableMixerFailsTheCheck() throws {
    let dock = try dock()
    // The PCM plays into the sink; the control device of the same name talks to no server.
    let asoundrc = dock.home + "/.asoundrc"
    try
      (String(contentsOfFile: asoundrc, encoding: .utf8)
      + "ctl.!pulse { type pulse; server \"unix:\(dock.directory.path)/no-such-server\" }\n").write(
        toFile: asoundrc, atomically: true, encoding: .utf8)
    try dock.start()
    try dock.pair(paired)
    try dock.addAlarm(inSeconds: 3600)
    let check = try dock.ctl("check")
    #expect(check.status != 0)
    #expect(
      check.stdout.contains("mixer: FAILED — the mixer pulse: snd_ctl_open:"),
      "\(check.stdout)")
    let status = try dock.ctl("status").stdout
    #expect(
      status.contains("NOT PROTECTED") && status.contains("pre-flight check failed: mixer"), "\(status)")
  }
}
