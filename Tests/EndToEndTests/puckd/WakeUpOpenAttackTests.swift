import Foundation
import Glibc
import Testing

/// The ways around the puck that a review of the spec found (docs/DESIGN.md P3, S11), tried on
/// a real puckd through the real puckctl while an alarm rings: root enrolling a reader with a
/// key of its choosing (a signed scan would then end the wake-up with no override), and a
/// `puckalarm` member removing or disabling the ringing alarm, or starting a rehearsal in the
/// quiet time that takes the puck's scan. Each is refused and changes nothing; the puck still
/// ends the wake-up.
@Suite("a wake-up open: no way around the puck", .serialized)
struct WakeUpOpenAttackTests {
  private static let puck = "04:A2:3B:11:22:33:44"

  @Test(
    "reader add (root), alarm rm/disable and test (a member) are refused while it rings; the puck ends it")
  func noWayAroundThePuck() throws {
    let group = try puckalarmGroup()
    let dock = try DaemonHarness(config: "[enforcement]\nstop_after = 5s\n", audio: false)
    try dock.writePairing(Self.puck)
    try dock.start()
    try dock.addAlarm(inSeconds: 2)
    let id = try #require(
      try dock.ctl("alarm", "list").stdout.split(separator: " ").first.map(String.init), "the alarm's ID")
    try waitUntil(timeout: 15, "the alarm rings") { try dock.isRinging() }

    // Root, with a key of its choosing on standard input.
    let chosen = String(repeating: "5a", count: 32)
    let enrol = try dock.ctl("reader", "add", "kitchen", "--key-stdin", stdin: chosen + "\n")
    #expect(enrol.status == 2, "refused: \(enrol.stdout) \(enrol.stderr)")
    #expect(enrol.stderr.contains("a wake-up is open"), "\(enrol.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dock.stateDirectory + "/reader-kitchen.key"))

    // A member of the puckalarm group, as puckctl run by the sleeper would be.
    func member(_ arguments: String...) throws -> ProcessResult { try member(arguments) }
    func member(_ arguments: [String]) throws -> ProcessResult {
      try runExternal(
        "/usr/bin/setpriv",
        [
          "--reuid=65534", "--regid=\(group)", "--clear-groups", Binaries.url("puckctl").path, "--socket",
          dock.socketPath,
        ] + arguments)
    }
    for arguments in [["alarm", "rm", id], ["alarm", "disable", id]] {
      let result = try member(arguments)
      #expect(result.status == 2, "\(arguments) refused: \(result.stdout) \(result.stderr)")
    }
    // A stop is a bypass, as ever, once the ring has been heard for stop_after (W18).
    var stop = try member("stop")
    for _ in 0..<160 where stop.status == 2 && stop.stderr.contains("before puckctl stop counts") {
      usleep(250_000)
      stop = try member("stop")
    }
    #expect(stop.status == 0, "a stop is a bypass: \(stop.stdout) \(stop.stderr)")
    let rehearsal = try member("test", "--seconds", "1", "--scan-seconds", "30")
    #expect(rehearsal.status == 2, "refused in the quiet time: \(rehearsal.stdout) \(rehearsal.stderr)")
    #expect(try dock.ctl("alarm", "list").stdout.hasPrefix("\(id) "), "the alarm is still there")
    #expect(try dock.guards().count == 1, "the wake-up is still open")

    let scan = try dock.ctl("scan", Self.puck)
    #expect(scan.stdout.contains("wake-up complete"), "\(scan.stdout) \(scan.stderr)")
    #expect(try dock.guards().isEmpty)
  }
}
