import Foundation
import PuckCore
import PuckDaemon
import Testing

/// While a wake-up is open only the puck (or an override) ends it (docs/DESIGN.md P3, S11):
/// nothing about its alarm changes, no reader is enrolled that could end it another way, and no
/// rehearsal takes the puck's scan. And pairing's own rules, in the daemon.
@Suite("refused while a wake-up is open, and pairing's rules", .serialized)
struct WakeUpOpenRefusalsTests {
  private let everyDay = Set(Weekday.allCases)

  @Test("alarm rm, disable and enable are refused for the alarm whose wake-up is open; another alarm changes")
  func theOpenAlarmCannotBeRemovedOrDisabled() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    let id = try dock.addAlarm(6, 1, days: everyDay)
    let other = try dock.addAlarm(9, 0, days: everyDay)
    try dock.advance(.seconds(60))
    try #require(try dock.guards().count == 1)
    for command in [["alarm", "rm", "\(id)"], ["alarm", "disable", "\(id)"], ["alarm", "enable", "\(id)"]] {
      let reply = try dock.request(try ControlRequest(commandLine: command))
      #expect(reply.failure?.kind == .refused, "\(command): \(reply)")
      #expect(reply.failure?.message.contains("has a wake-up open") == true, "\(command): \(reply)")
    }
    let alarm = try dock.request("alarm", "list").alarms?.first { $0.alarm.id == id }?.alarm
    #expect(alarm?.enabled == true, "still there, still enabled")
    #expect(try dock.request("alarm", "disable", "\(other)").ok == true, "another alarm can change")
    try #require(dock.bench.reader).present(dock.puck)
    try dock.settle()
    #expect(try dock.guards().isEmpty)
    #expect(try dock.request("alarm", "rm", "\(id)").ok == true, "once the puck ended it")
  }

  @Test("puckctl test is refused during the quiet time after a stop; the puck's scan then ends the wake-up")
  func noRehearsalTakesThePucksScan() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 1, days: everyDay)
    try dock.advance(.seconds(60))
    #expect(try dock.stopOnceHeard().ok == true)
    try #require(try dock.guards().first?.ringing == false, "quiet until the retry")
    let rehearsal = try dock.request("test")
    #expect(rehearsal.failure?.kind == .refused, "\(rehearsal)")
    try #require(dock.bench.reader).present(dock.puck)
    try dock.settle()
    #expect(try dock.guards().isEmpty, "the scan went to the wake-up")
  }

  @Test("reader add is refused while a wake-up is open, with a new key or one given: no key file, no reader")
  func noReaderIsEnrolledWhileOpen() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 1, days: everyDay)
    try dock.advance(.seconds(60))
    try #require(try dock.guards().count == 1)
    let chosen = String(repeating: "ab", count: 32)
    for request in [
      try ControlRequest(commandLine: ["reader", "add", "kitchen"]),
      ControlRequest(.readerAdd, [.reader: .text("kitchen"), .key: .text(chosen)]),
    ] {
      let reply = try dock.request(request)
      #expect(reply.failure?.kind == .refused, "\(reply)")
    }
    #expect(!FileManager.default.fileExists(atPath: dock.stateDirectory + "/reader-kitchen.key"))
    #expect(dock.bench.remote("kitchen") == nil, "no reader started")
    #expect(try dock.request("reader", "list").readers?.isEmpty != false)
  }

  @Test(
    "pairing in the daemon: a phone's random UID is refused and the wait goes on; each scan has the whole timeout"
  )
  func pairingRefusesRandomUIDsAndWaitsForEachScan() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    let reader = try #require(dock.bench.reader)
    let spare = try TagUID(parsing: "04:11:22:33:44:55:66")
    let connection = try dock.open("pair", "--name", "spare", "--timeout", "30")
    reader.present(try TagUID(parsing: "08:12:34:56"))
    var replies = try connection.replies()
    #expect(replies.contains { $0.progress?.contains("random") == true }, "\(replies)")
    #expect(replies.allSatisfy { $0.ok == nil }, "still waiting")
    try dock.advance(.seconds(29))
    reader.present(spare)
    replies = try connection.replies()
    #expect(replies.contains { $0.progress?.contains("present the same tag again") == true }, "\(replies)")
    try dock.advance(.seconds(29))
    replies = try connection.replies()
    #expect(
      replies.allSatisfy { $0.ok == nil }, "58 s in, the second scan still has its own 30 s: \(replies)")
    reader.present(spare)
    var final: ControlReply?
    for _ in 0..<50 where final == nil { final = try connection.replies().last { $0.ok != nil } }
    #expect(final?.ok == true, "\(String(describing: final))")
    #expect(try dock.request("pucks").pucks?.map(\.name) == ["primary", "spare"])
  }

  @Test("pairing: a second tag that is not the first, or no second tag in time, pairs nothing")
  func pairingNeedsTheSameTagTwiceInTime() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    let reader = try #require(dock.bench.reader)
    let first = try TagUID(parsing: "04:11:22:33:44:55:66")
    let second = try TagUID(parsing: "04:77:88:99:AA:BB:CC")

    var connection = try dock.open("pair", "--name", "spare")
    reader.present(first)
    _ = try connection.replies()
    reader.present(second)
    var final = try connection.replies().last { $0.ok != nil }
    #expect(final?.failure?.message.contains("is not the first") == true, "\(String(describing: final))")

    connection = try dock.open("pair", "--name", "spare", "--timeout", "30")
    reader.present(first)
    _ = try connection.replies()
    try dock.advance(.seconds(31))
    final = try connection.replies().last { $0.ok != nil }
    #expect(
      final?.failure?.message == "the same tag was not presented again within 30 s; nothing paired",
      "\(String(describing: final))")
    #expect(try dock.request("pucks").pucks?.map(\.name) == ["primary"], "nothing paired")
  }
}
