import Foundation
import Glibc
import Testing

/// Issue 13 item 3 end to end: a dock paired before pucks had names (a version 1 pairing file)
/// takes a backup puck, either ends a wake-up, `pucks` says when each was seen, and unpairing
/// the last one asks first.
@Suite("several pucks, end to end", .serialized)
struct PucksEndToEndTests {
  @Test(
    "a version 1 pairing becomes 'primary'; a backup paired by name ends the wake-up; the last goes only confirmed"
  )
  func backupPuck() throws {
    let dock = try DaemonHarness(config: "[audio]\ndevice = null\n", audio: false)
    try dock.writePairing("04:A2:3B:11:22:33:44")
    try dock.start()
    #expect(
      try dock.ctl("pucks").stdout.hasPrefix("primary  …:33:44  paired "), "the old file reads as primary")

    try dock.pair("04:11:22:33:44:55:66", name: "backup in the car")
    let text = try String(contentsOfFile: dock.stateDirectory + "/pairing.json", encoding: .utf8)
    #expect(text.contains("\"schemaVersion\" : 2") && text.contains("backup in the car"), "\(text)")
    var info = stat()
    #expect(stat(dock.stateDirectory + "/pairing.json", &info) == 0 && info.st_mode & 0o777 == 0o600)
    #expect(
      try dock.ctl("status").stdout.contains("Pucks:    primary (…:33:44), backup in the car (…:55:66)"))

    _ = try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    #expect(try dock.ctl("unpair", "--name", "backup in the car").status == 2, "refused while open")
    #expect(try dock.ctl("scan", "04:11:22:33:44:55:66").stdout.contains("wake-up complete"))
    #expect(try dock.ctl("history").stdout.contains("woke with the puck backup in the car (…:55:66)"))
    let pucks = try dock.ctl("pucks").stdout.split(separator: "\n")
    #expect(pucks.count == 2)
    #expect(pucks.last?.contains("last seen ") == true, "\(pucks)")

    #expect(try dock.ctl("unpair", "--name", "backup in the car").status == 0)
    _ = try dock.ctl("alarm", "add", "06:30", "--days", "daily")
    let refused = try dock.ctl("unpair", stdin: "no\n")
    #expect(refused.status == 1, "not confirmed: \(refused.stdout) \(refused.stderr)")
    #expect(refused.stdout.contains("the last puck and an enabled alarm needs one"))
    #expect(try dock.ctl("pucks").stdout.hasPrefix("primary"), "nothing changed")
    let confirmed = try dock.ctl("unpair", stdin: "unpair\n")
    #expect(confirmed.status == 0, "\(confirmed.stderr)")
    #expect(try dock.ctl("pucks").stdout.contains("no puck paired"))
  }
}
