import Foundation
import Glibc
import Testing

/// Issue 33 item 3 as the attack, against a real puckd: the phone in bed (a `puckalarm` member
/// through `setpriv`, and root) tries every way to cancel or delay the alarm due in a moment;
/// each is refused with until when and what ends it; a scan of the puck then ends it quietly, it
/// never rings, and history says "up before the alarm" (docs/DESIGN.md S12).
@Suite("the hour before an alarm, end to end", .serialized)
struct LockWindowAttackTests {
  static let puck = "04:A2:3B:11:22:33:44"

  @Test(
    "as a member and as root nothing cancels the alarm 25 s ahead; the puck's scan ends it before it rings")
  func nothingFromBedOnlyThePuck() throws {
    let group = try puckalarmGroup()
    let dock = try DaemonHarness(
      config: "[audio]\ndevice = null\n[enforcement]\nlock_before = 1h\n", audio: false)
    try dock.writePairing(Self.puck)
    try dock.start()
    let fire = Date().addingTimeInterval(25)
    let formatter = DateFormatter()
    formatter.dateFormat = "HH:mm:ss"
    formatter.timeZone = .current
    let added = try dock.ctl("alarm", "add", formatter.string(from: fire), "--days", "daily")
    #expect(added.status == 0, "\(added.stderr)")
    // A restart: what the sleeper set long ago, past the two minutes a new alarm may be corrected.
    dock.stop(signal: SIGTERM)
    try dock.start()
    #expect(try dock.ctl("alarm", "list").stdout.contains("(locked)"))
    #expect(try dock.ctl("status").stdout.contains("Locked:   alarm 1"))

    func member(_ arguments: [String]) throws -> ProcessResult {
      try runExternal(
        "/usr/bin/setpriv",
        [
          "--reuid=65534", "--regid=\(group)", "--clear-groups", Binaries.url("puckctl").path, "--socket",
          dock.socketPath,
        ]
          + arguments)
    }
    let attempts: [[String]] = [
      ["alarm", "skip", "1"], ["alarm", "disable", "1"], ["alarm", "rm", "1"],
      ["alarm", "edit", "1", "--time", "23:59"], ["alarm", "edit", "1", "--no-puck"],
      ["alarm", "pause", "1", "--until", "tomorrow"], ["pause", "--until", "tomorrow"],
    ]
    for arguments in attempts {
      for (who, result) in [("member", try member(arguments)), ("root", try dock.ctl(arguments))] {
        #expect(result.status == 2, "\(arguments) as \(who) refused: \(result.stdout) \(result.stderr)")
        #expect(
          result.stderr.contains("is locked until it rings"), "\(arguments) as \(who): \(result.stderr)")
        #expect(result.stderr.contains("A scan of the puck ends today's alarm"), "\(result.stderr)")
      }
    }
    let unpair = try dock.ctl("unpair", "--yes")
    #expect(unpair.status == 2 && unpair.stderr.contains("unpairing the last puck"), "\(unpair.stderr)")
    #expect(try dock.ctl("alarm", "add", "23:58").status == 0, "adding is accepted")

    let scan = try dock.ctl("scan", Self.puck)
    #expect(scan.status == 0, "\(scan.stderr)")
    try waitUntil(timeout: 5, "the history says up before the alarm") {
      try dock.ctl("history").stdout.contains("up before the alarm")
    }
    // Past its time, and a little more: it never rang.
    usleep(UInt32(max(0, fire.timeIntervalSinceNow + 3) * 1_000_000))
    #expect(try dock.guards().isEmpty, "nothing rings")
    #expect(!dock.log.contains("RINGING"), "the log has no ring")
    #expect(dock.log.contains("up before the alarm"))
  }
}
