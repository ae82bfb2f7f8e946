import Foundation
import Glibc
import Testing

/// `guards.json` has one writer, and each change of the record is saved with the event it
/// belongs to in one write (docs/DESIGN.md D12). Here a running `puckd` is traced with strace,
/// which sends it SIGKILL on entering its n-th `rename` (the file changes only at a rename)
/// while an alarm falls due, and while an override closes a wake-up. At every kill point the
/// file is whole, and after the restart the dock is in one of the states the flow passes
/// through, never half of one: the alarm rings once and is never counted as missed; the
/// override has closed the wake-up and is noted for the owner, or neither.
@Suite("guards.json: puckd killed at each rename of a flow", .serialized)
struct RecordWriterKillTests {
  static let puck = "04:A2:3B:11:22:33:44"

  /// What a kill point left: the open wake-ups, the overrides and missed alarms status notes.
  struct Left: Sendable, CustomStringConvertible {
    let guards: Int
    let ringing: Bool
    let overrides: Int
    let missed: Int
    var description: String {
      "\(guards) open wake-up(s)\(ringing ? ", ringing" : ""), \(overrides) override(s) noted, \(missed) missed"
    }
  }

  typealias Found = KillPointFound<Left>

  @Test(
    "an alarm falls due: at every kill the file is whole, and after the restart it rings, once, not missed")
  func killedWhileTheAlarmFallsDue() throws {
    let found = KillPoints.untilOneGetsPast(1...4) { invocation in
      let dock = try Self.dock()
      try dock.addAlarm(inSeconds: 3)
      let strace = try AwakeCheckKillTests.trace(dock, killingAtRename: invocation)
      try waitUntil(timeout: 20, "puckd is killed, or the alarm rings") {
        dock.process?.isRunning != true || (try? dock.isRinging()) == true
      }
      return try Self.outcome(dock, strace: strace) { dock in
        // The restarted daemon rings what it finds open, or what fell due while it was down.
        try? waitUntil(timeout: 20, "the alarm rings after the restart") { try dock.isRinging() }
      }
    }
    let rings = { (left: Left) in left.guards == 1 && left.ringing && left.missed == 0 }
    Self.judge(found, restarted: rings, done: rings)
  }

  @Test("an override closes the wake-up: at every kill, it is still open and not noted, or closed and noted")
  func killedWhileTheOverrideCloses() throws {
    let found = KillPoints.untilOneGetsPast(1...8) { invocation in
      let dock = try Self.dock(config: "[enforcement]\noverride_delay = 0s\n")
      try dock.addAlarm(inSeconds: 2)
      try waitUntil(timeout: 20, "the alarm rings") { try dock.isRinging() }
      let strace = try AwakeCheckKillTests.trace(dock, killingAtRename: invocation)
      let overridden = try? dock.ctl("override", "--yes")
      let deadline = Date().addingTimeInterval(overridden?.status == 0 ? 0.5 : 10)
      while dock.process?.isRunning == true && Date() < deadline { usleep(10_000) }
      return try Self.outcome(dock, strace: strace) { _ in }
    }
    Self.judge(
      found, restarted: { ($0.guards, $0.overrides) == (1, 0) || ($0.guards, $0.overrides) == (0, 1) },
      done: { $0.guards == 0 && $0.overrides == 1 })
  }

  /// A started daemon with the paired tag, its sound on ALSA's null device.
  static func dock(config: String = "") throws -> DaemonHarness {
    let dock = try DaemonHarness(config: "[audio]\ndevice = null\n" + config, audio: false)
    try dock.writePairing(puck)
    try dock.start()
    return dock
  }

  /// What the run left (`KillPoints.outcome`): a killed one's `guards.json` must decode.
  static func outcome(
    _ dock: DaemonHarness, strace: Process, settle: (DaemonHarness) throws -> Void
  ) throws -> Found {
    try KillPoints.outcome(dock, strace: strace, onDisk: onDisk, left: left, settle: settle)
  }

  static func left(_ dock: DaemonHarness) throws -> Left {
    let status = try dock.status()
    let guards = status["guards"] as? [[String: Any]] ?? []
    return Left(
      guards: guards.count, ringing: guards.contains { $0["ringing"] as? Bool == true },
      overrides: (status["overrides"] as? [Any])?.count ?? 0, missed: (status["missed"] as? [Any])?.count ?? 0
    )
  }

  /// `guards.json` as the kill left it: it must decode.
  static func onDisk(_ dock: DaemonHarness) throws -> Left {
    let data = try Data(contentsOf: URL(fileURLWithPath: dock.stateDirectory + "/guards.json"))
    guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let payload = document["payload"] as? [String: Any]
    else { throw HarnessError("guards.json is not whole after the kill") }
    let guards = payload["guards"] as? [[String: Any]] ?? []
    return Left(
      guards: guards.count, ringing: false,
      overrides: (payload["unacknowledgedOverrides"] as? [Any])?.count ?? 0,
      missed: (payload["unacknowledgedMissed"] as? [Any])?.count ?? 0)
  }

  /// Every killed run left a whole file and, after the restart, a state `restarted` accepts;
  /// every run that got past the traced renames (one must) ended as `done` says.
  static func judge(
    _ found: [Int: Result<Found, HarnessError>], restarted whole: (Left) -> Bool, done: (Left) -> Bool
  ) {
    var survived = false
    var killed = false
    for (invocation, result) in found.sorted(by: { $0.key < $1.key }) {
      let point = "rename #\(invocation)"
      switch result {
      case .failure(let error):
        Issue.record("\(point): \(error)")
      case .success(.killed(let disk, let restarted)):
        killed = true
        #expect(disk.guards + disk.overrides <= 1, "\(point): on disk, \(disk)")
        #expect(whole(restarted), "\(point): after the restart, \(restarted)")
      case .success(.survived(let left)):
        survived = true
        #expect(done(left), "\(point): the run went on to \(left)")
      }
    }
    #expect(
      survived,
      "every kill point was reached: the flow's last renames went untested: \(KillPoints.summary(found))")
    #expect(killed, "no kill point was reached: \(found.mapValues { "\($0)" })")
  }
}
