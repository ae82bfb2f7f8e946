import Foundation
import PuckCore
import PuckDaemon
import PuckDevices
import Testing

/// Issue 13 item 3 on the manual clock (docs/DESIGN.md P6): several named pucks, any of them
/// ends a wake-up, each with when it was last seen; removing one is refused while a wake-up is
/// open, and the last one goes only confirmed while an enabled alarm needs one.
@Suite("several pucks", .serialized)
struct PucksTests {
  private let backup: TagUID

  init() throws {
    backup = try TagUID(parsing: "04:11:22:33:44:55:66")
  }

  /// Pairs `uid` as `name` with two presentations on the scripted reader.
  private func pair(_ uid: TagUID, as name: String?, on dock: ManualDock) throws -> ControlReply {
    let connection = try dock.open(
      try ControlRequest(commandLine: ["pair"] + (name.map { ["--name", $0] } ?? [])))
    let reader = try #require(dock.bench.reader)
    reader.present(uid)
    _ = try connection.replies()
    reader.present(uid)
    for _ in 0..<50 {
      if let final = try connection.replies().last(where: { $0.ok != nil }) { return final }
    }
    throw CocoaError(.fileReadUnknown)
  }

  @Test("a backup puck paired by name ends the wake-up; history and pucks say which, and when it was seen")
  func backupEndsTheWakeUp() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    let paired = try pair(backup, as: "backup in the car", on: dock)
    #expect(paired.ok == true, "\(paired)")
    #expect(paired.message?.contains("2 pucks are paired") == true)
    var pucks = try #require(try dock.request("pucks").pucks)
    #expect(pucks.map(\.name) == ["primary", "backup in the car"])
    #expect(pucks.map(\.tag) == ["…:33:44", "…:55:66"])

    try dock.addAlarm(6, 1, days: Set(Weekday.allCases))
    try dock.advance(.seconds(60))
    #expect(try dock.guards().first?.ringing == true)
    try #require(dock.bench.reader).present(backup)
    try dock.settle()
    #expect(try dock.guards().isEmpty, "the backup ended it")
    #expect(try dock.history().last?.puck == "backup in the car (…:55:66)")
    pucks = try #require(try dock.request("pucks").pucks)
    #expect(pucks.last?.lastSeen == dock.now)
    #expect(pucks.first?.lastSeen == nil, "the primary has not been seen since it was paired")
    let status = try dock.status()
    #expect(status.pucks?.count == 2)
    #expect(status.protected, "\(status.reasons)")
  }

  @Test("the same tag twice, or a name in use, is refused; nothing changes")
  func duplicatesAreRefused() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    let again = try pair(dock.puck, as: "spare", on: dock)
    #expect(again.failure?.kind == .refused)
    #expect(again.failure?.message.contains("already paired, as primary") == true, "\(again)")
    let name = try dock.request("pair", "--name", "primary")
    #expect(name.failure?.message.contains("already named 'primary'") == true, "\(name)")
    #expect(try dock.request("pucks").pucks?.count == 1)
  }

  @Test("unpair: refused while a wake-up is open, needs a name among several, and the last needs confirming")
  func unpairRules() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    #expect(try pair(backup, as: "backup", on: dock).ok == true)
    try dock.addAlarm(6, 1, days: Set(Weekday.allCases))
    try dock.advance(.seconds(60))
    #expect(try dock.request("unpair", "--name", "backup").failure?.kind == .refused, "a wake-up is open")
    try #require(dock.bench.reader).present(dock.puck)
    try dock.settle()

    #expect(try dock.request("unpair").failure?.kind == .badRequest, "which one?")
    #expect(try dock.request("unpair", "--name", "nope").failure?.kind == .notFound)
    #expect(try dock.request("unpair", "--name", "backup").ok == true)
    let last = try dock.request("unpair")
    #expect(last.failure?.kind == .refused)
    #expect(last.failure?.message.contains("--yes") == true, "\(last)")
    #expect(try dock.request("pucks").pucks?.count == 1, "still paired")
    #expect(try dock.request("unpair", "--yes").ok == true)
    #expect(try dock.request("pucks").pucks?.isEmpty == true)
    #expect(!FileManager.default.fileExists(atPath: dock.stateDirectory + "/pairing.json"))
  }
}
