import Foundation
import Glibc
import Testing

/// The wake-up check stopped by real kills (docs/DESIGN.md W17, D1): a running `puckd` is traced
/// with strace, which sends it SIGKILL on entering its n-th `rename` while a scan ends a wake-up
/// (which starts a check) or while an unanswered check opens the wake-up again. `guards.json`
/// changes only at a rename, so a kill before each rename, and a run that gets past the last
/// one, leave every state the file passes through. In each, and after a restart, the wake-up
/// is open or its check waits: never neither, or the person who went back to bed is not woken.
/// Each kill point runs on a daemon and a thread of its own, all at once (no `#expect` off the
/// test's thread: each reports what it found): an unanswered check takes the answer window, a
/// minute.
@Suite("wake-up check: puckd killed at each rename", .serialized)
struct AwakeCheckKillTests {
  static let puck = "04:A2:3B:11:22:33:44"

  typealias Found = KillPointFound<Left>

  /// The open wake-ups and whether a check waits.
  struct Left: Sendable, CustomStringConvertible {
    let guards: Int
    let check: Bool
    var neither: Bool { guards == 0 && !check }
    var description: String { "\(guards) open wake-up(s), \(check ? "a check waiting" : "no check")" }
  }

  @Test(
    "a scan ends the wake-up and starts the check: at every kill, the wake-up is still open or the check waits"
  )
  func killedWhileTheScanCloses() throws {
    // The check waits an hour: nothing else writes while the scan's saves are counted.
    let found = KillPoints.untilOneGetsPast(1...10) { invocation in
      let dock = try Self.dock(awakeCheck: "1h")
      let strace = try Self.trace(dock, killingAtRename: invocation)
      let scanned = try? dock.ctl("scan", Self.puck)
      // Its reply comes after the last save; a kill may still be on its way.
      let deadline = Date().addingTimeInterval(scanned?.status == 0 ? 0.5 : 10)
      while dock.process?.isRunning == true && Date() < deadline { usleep(10_000) }
      return try Self.outcome(dock, strace: strace)
    }
    Self.expectNeverNeither(found) { left in left.guards == 0 && left.check }
  }

  @Test(
    "no answer to the check: at every kill while it opens the wake-up again, the wake-up is open or the check waits"
  )
  func killedWhileTheUnansweredCheckReopens() throws {
    let found = KillPoints.untilOneGetsPast(1...5) { invocation in
      let dock = try Self.dock(awakeCheck: "1s")
      guard try dock.ctl("scan", Self.puck).stdout.contains("wake-up complete") else {
        throw HarnessError("the scan did not end the wake-up")
      }
      try waitUntil(timeout: 20, "the dock asks") {
        (try dock.status()["awakeCheck"] as? [String: Any])?["answerBy"] != nil
      }
      let strace = try Self.trace(dock, killingAtRename: invocation)
      try waitUntil(timeout: Double(60 + 40), "puckd is killed, or the wake-up rings again") {
        dock.process?.isRunning != true || (try? dock.isRinging()) == true
      }
      return try Self.outcome(dock, strace: strace)
    }
    Self.expectNeverNeither(found) { left in left.guards == 1 && !left.check }
  }

  /// A daemon with `awake_check`, whose wake-up rings.
  static func dock(awakeCheck: String) throws -> DaemonHarness {
    let dock = try DaemonHarness(
      config: "[audio]\ndevice = null\n[enforcement]\nawake_check = \(awakeCheck)\n", audio: false)
    try dock.writePairing(puck)
    try dock.start()
    _ = try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 20, "the alarm rings") { try dock.isRinging() }
    return dock
  }

  /// Attaches strace to the running daemon with a SIGKILL at its `invocation`-th rename.
  static func trace(_ dock: DaemonHarness, killingAtRename invocation: Int) throws -> Process {
    try TornWriteKillTests.attachStrace(to: dock, killingAt: "?rename,renameat,?renameat2", invocation)
  }

  /// What the run left (`KillPoints.outcome`), read as status and `guards.json` show it.
  static func outcome(_ dock: DaemonHarness, strace: Process) throws -> Found {
    try KillPoints.outcome(dock, strace: strace, onDisk: onDisk, left: left)
  }

  /// The open wake-ups and the check as status shows them.
  static func left(_ dock: DaemonHarness) throws -> Left {
    let status = try dock.status()
    return Left(guards: (status["guards"] as? [Any])?.count ?? 0, check: status["awakeCheck"] != nil)
  }

  /// The open wake-ups and the check in `guards.json`.
  static func onDisk(_ dock: DaemonHarness) throws -> Left {
    let data = try Data(contentsOf: URL(fileURLWithPath: dock.stateDirectory + "/guards.json"))
    let document = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    guard let payload = document?["payload"] as? [String: Any] else {
      throw HarnessError("guards.json has no payload")
    }
    return Left(guards: (payload["guards"] as? [Any])?.count ?? 0, check: payload["awakeCheck"] != nil)
  }

  /// Every kill left the wake-up open or its check waiting, on disk and after the restart; the
  /// kill points reached past the last rename, where the run ends as `finished` says.
  static func expectNeverNeither(
    _ found: [Int: Result<Found, HarnessError>], finished: (Left) -> Bool
  ) {
    var survived = false
    for (invocation, result) in found.sorted(by: { $0.key < $1.key }) {
      let point = "rename #\(invocation)"
      switch result {
      case .failure(let error):
        Issue.record("\(point): \(error)")
      case .success(.killed(let disk, let restarted)):
        #expect(!disk.neither, "\(point): guards.json has neither the wake-up nor its check: \(disk)")
        #expect(!restarted.neither, "\(point): after the restart neither rings nor checks: \(restarted)")
      case .success(.survived(let left)):
        survived = true
        #expect(finished(left), "\(point): the run went on to \(left)")
      }
    }
    #expect(
      survived,
      "every kill point was reached: the run's last renames went untested: \(KillPoints.summary(found))")
    print("wake-up check by kill, at each rename: \(KillPoints.summary(found))")
  }
}
