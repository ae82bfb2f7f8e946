import Foundation
import Glibc
import PuckCore
import Testing

/// Attacks on the size of what the control socket takes and gives (issue 8, item 3): labels
/// that are short in characters and huge in bytes, unbounded alarm lists, and a history request
/// that made the daemon read and send the whole file. Each runs a real `puckd --simulate`, talks
/// over its real socket, and uses an unprivileged peer (`setpriv` to nobody) wherever the
/// request is open to everyone.
@Suite("control socket limits (attacks)", .serialized)
struct ControlLimitsAttackTests {
  /// 64 graphemes, each a base letter carrying 200 combining acute accents: 64 "characters"
  /// and about 25 KB of UTF-8, under the 64 KiB request limit.
  static let combiningLabel = String(
    repeating: "a" + String(repeating: "\u{0301}", count: 200), count: 64)

  @Test("puckd refuses a 64-grapheme label of tens of KB sent straight to the socket")
  func daemonRefusesLabelHeavyInBytes() throws {
    #expect(Self.combiningLabel.count == 64)
    #expect(Self.combiningLabel.utf8.count > 20_000)
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    // Straight to the socket, as a hostile client would, so puckctl's own check cannot hide
    // a daemon that accepts it.
    let draft = AlarmDraft(
      time: try WallTime(parsing: "06:30"), recurrence: .weekly([.monday]), label: Self.combiningLabel)
    let reply = try request(ControlWire.encode(ControlRequest(adding: draft)), socket: dock.socketPath)
    #expect(reply.ok == false)
    #expect(reply.failure?.kind == .badRequest)
    #expect(reply.failure?.message.contains("256 bytes") == true, "got \(String(describing: reply.failure))")
    #expect(try alarmCount(dock) == 0)

    // A control character is refused the same way.
    var bell = draft
    bell.label = "wake\u{07}up"
    let belled = try request(ControlWire.encode(ControlRequest(adding: bell)), socket: dock.socketPath)
    #expect(belled.ok == false)
    #expect(belled.failure?.kind == .badRequest)
    #expect(try alarmCount(dock) == 0)
  }

  @Test("puckctl refuses such a label before sending, with a clear error")
  func puckctlRefusesLabelHeavyInBytes() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    let result = try dock.ctl("alarm", "add", "06:30", "--days", "mon", "--label", Self.combiningLabel)
    #expect(result.status == 64, "stdout: \(result.stdout.prefix(200)) stderr: \(result.stderr.prefix(200))")
    #expect(result.stderr.contains("at most 64 characters and 256 bytes"))
    #expect(try alarmCount(dock) == 0)
    #expect(!dock.log.contains("alarm.add"), "the request never reached puckd")
  }

  @Test("adding the 101st alarm is refused and says how to make room")
  func alarmCountIsCapped() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    let draft = AlarmDraft(time: try WallTime(parsing: "06:30"), recurrence: .weekly([.monday]), label: "x")
    for number in 1...100 {
      let reply = try request(ControlWire.encode(ControlRequest(adding: draft)), socket: dock.socketPath)
      try #require(reply.ok == true, "alarm \(number): \(String(describing: reply.failure))")
    }
    let result = try dock.ctl("alarm", "add", "07:00", "--days", "tue")
    #expect(result.status == 2, "stdout: \(result.stdout) stderr: \(result.stderr)")
    #expect(result.stderr.contains("at most 100 alarms; remove one first (puckctl alarm rm ID)"))
    let raw = try request(ControlWire.encode(ControlRequest(adding: draft)), socket: dock.socketPath)
    #expect(raw.ok == false)
    #expect(raw.failure?.kind == .refused)
    #expect(try alarmCount(dock) == 100)

    // Room made, the next one fits.
    #expect(try dock.ctl("alarm", "rm", "1").status == 0)
    #expect(try dock.ctl("alarm", "add", "07:00", "--days", "tue").status == 0)
    #expect(try alarmCount(dock) == 100)
  }

  @Test("alarms.json from before the limits: every alarm kept, labels cut to fit, no more added")
  func oversizedStateIsToleratedAndBounded() throws {
    let dock = try DaemonHarness(audio: false)
    let alarms = (1...120).map { id in
      let label = id == 1 ? Self.combiningLabel : String(repeating: "w", count: 300)
      return #"{"id": \#(id), "time": "06:30", "days": ["mon"], "label": "\#(label)", "enabled": true}"#
    }
    try dock.writeState(
      "alarms.json", payload: #"{"alarms": [\#(alarms.joined(separator: ","))], "nextID": 121}"#)
    try dock.start()

    let list = try request(ControlWire.encode(ControlRequest(.alarmList)), socket: dock.socketPath)
    #expect(list.alarms?.count == 120)
    #expect(
      list.alarms?.allSatisfy { $0.alarm.label.utf8.count <= 256 && $0.alarm.label.count <= 64 } == true)
    #expect(list.alarms?.last?.alarm.label == String(repeating: "w", count: 64))
    let listed = try dock.ctl("alarm", "list", as: "nobody")
    #expect(listed.status == 0)
    #expect(listed.stdout.utf8.count < 120 * 400, "the list stays small")
    #expect(try [0, 1].contains(dock.ctl("status", as: "nobody").status))

    let add = try dock.ctl("alarm", "add", "07:00", "--days", "tue")
    #expect(add.status == 2)
    #expect(add.stderr.contains("at most 100 alarms"))
    #expect(try alarmCount(dock) == 120)
  }

  @Test("history of 200,000 entries: nobody gets the newest 20, --limit is capped, pages join without gaps")
  func historyIsPaged() throws {
    let dock = try DaemonHarness(audio: false)
    let total = 200_000
    try writeHistory(count: total, into: dock.stateDirectory)
    try dock.start()

    // Default: the newest 20, newest last, and a cursor to go further back.
    let first = try historyJSON(dock, [])
    #expect(first.rings == Array((total - 20)..<total))
    #expect(first.nextBefore != nil)

    // A person sees the command for the next page.
    let text = try dock.ctl("history", as: "nobody")
    #expect(text.status == 0, "\(text.stderr)")
    #expect(text.stdout.split(separator: "\n").count == 21)
    #expect(text.stdout.contains("older wake-ups: puckctl history --before \(first.nextBefore ?? -1)"))

    // Too many at once is refused clearly, by puckctl and by puckd.
    let tooMany = try dock.ctl("history", "--limit", "5000", as: "nobody")
    #expect(tooMany.status == 64)
    #expect(tooMany.stderr.contains("at most 1000"), "\(tooMany.stderr)")
    let rawTooMany = try request(
      Array(#"{"v":1,"command":"history","limit":5000}"#.utf8), socket: dock.socketPath)
    #expect(rawTooMany.ok == false)
    #expect(rawTooMany.failure?.kind == .badRequest)
    #expect(rawTooMany.failure?.message.contains("at most 1000") == true)

    // An old client that sends only `limit` still gets the newest entries.
    let old = try request(Array(#"{"v":1,"command":"history","limit":3}"#.utf8), socket: dock.socketPath)
    #expect(old.history?.map(\.rings) == [total - 3, total - 2, total - 1])

    // Paging back: each page is exactly the next-older run of entries.
    var cursor = first.nextBefore
    var expectedEnd = total - 20
    for _ in 0..<3 {
      let before = try #require(cursor)
      let page = try historyJSON(dock, ["--limit", "1000", "--before", "\(before)"])
      #expect(page.rings == Array((expectedEnd - 1000)..<expectedEnd))
      expectedEnd -= 1000
      cursor = page.nextBefore
    }

    // A made-up cursor is refused, not read as a line (which would copy history aside as corrupt).
    let forged = try dock.ctl("history", "--before", "\((first.nextBefore ?? 0) + 7)", as: "nobody")
    #expect(forged.status == 64, "\(forged.stdout) \(forged.stderr)")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dock.stateDirectory).allSatisfy {
        !$0.contains("corrupt")
      })
  }

  @Test("paging reaches the oldest entry, then says there is nothing older")
  func historyPagingEnds() throws {
    let dock = try DaemonHarness(audio: false)
    try writeHistory(count: 45, into: dock.stateDirectory)
    try dock.start()
    var seen: [Int] = []
    var arguments: [String] = []
    var pages = 0
    while true {
      let page = try historyJSON(dock, arguments)
      seen = page.rings + seen
      pages += 1
      guard let next = page.nextBefore, pages < 10 else { break }
      arguments = ["--before", "\(next)"]
    }
    #expect(pages == 3)
    #expect(seen == Array(0..<45))
    let last = try dock.ctl("history", "--before", arguments.last ?? "", as: "nobody")
    #expect(!last.stdout.contains("older wake-ups: puckctl"))
    #expect(last.stdout.split(separator: "\n").count == 5)
  }

  // MARK: - Helpers

  /// `puckctl history --json ARGS` as nobody: the `rings` of each entry (the test's entry
  /// number) and the cursor for the next older page.
  private func historyJSON(_ dock: DaemonHarness, _ arguments: [String]) throws -> (
    rings: [Int], nextBefore: Int?
  ) {
    let result = try dock.ctl(["history", "--json"] + arguments, as: "nobody")
    guard result.status == 0 else { throw HarnessError("history \(arguments): \(result.stderr)") }
    let reply = try ControlWire.decodeReply(Array(result.stdout.utf8.filter { $0 != UInt8(ascii: "\n") }))
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    return (reply.history?.map(\.rings) ?? [], object?["nextBefore"] as? Int)
  }

  private func alarmCount(_ dock: DaemonHarness) throws -> Int {
    let reply = try request(ControlWire.encode(ControlRequest(.alarmList)), socket: dock.socketPath)
    return reply.alarms?.count ?? -1
  }

  /// Writes `count` history lines, entry `n` with `rings == n` and closing `n` minutes after
  /// 2020-01-01, in HistoryLog's format.
  private func writeHistory(count: Int, into directory: String) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let start = Instant(utcDate: LocalDate(year: 2020, month: 1, day: 1), secondsOfDay: 0)
    var text = ""
    text.reserveCapacity(count * 300)
    for number in 0..<count {
      let closed = start.adding(seconds: Int64(number) * 60)
      text +=
        #"{"payload":{"bypassCount":0,"closedAt":"\#(closed)","occurrence":{"alarmID":1,"isOneShot":false,"#
        + #""label":"work","requiresPuck":true,"scheduledAt":"\#(closed)","time":"06:30"},"#
        + #""outcome":"woke","rings":\#(number)},"schemaVersion":1}"# + "\n"
    }
    let path = directory + "/history.jsonl"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, 0o600)
  }
}

/// Sends one request line over a fresh connection and returns the final reply.
private func request(_ line: [UInt8], socket path: String) throws -> ControlReply {
  let descriptor = unixSocket(SOCK_STREAM, path: path)
  guard descriptor >= 0 else { throw HarnessError("cannot connect to \(path)") }
  defer { close(descriptor) }
  let bytes = line + [UInt8(ascii: "\n")]
  var offset = 0
  while offset < bytes.count {
    // MSG_NOSIGNAL: a daemon that hangs up on an oversized line is an EPIPE, not a SIGPIPE.
    let written = bytes[offset...].withUnsafeBytes {
      send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
    }
    guard written > 0 else { throw HarnessError("write to \(path) failed") }
    offset += written
  }
  var received: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 64 * 1024)
  while true {
    while let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
      let reply = try ControlWire.decodeReply(received[..<newline])
      received.removeSubrange(...newline)
      if reply.ok != nil { return reply }
    }
    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { throw HarnessError("puckd closed the connection without a final reply") }
    received += chunk[..<count]
  }
}
