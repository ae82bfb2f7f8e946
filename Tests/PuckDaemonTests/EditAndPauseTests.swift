import Foundation
import PuckCore
import PuckDaemon
import Testing

/// `alarm edit`, `alarm pause`/`resume` and a pause of the whole dock (issue 13 item 8), on the
/// manual clock: what rings and what does not, what status and the list say, and that nothing
/// about an alarm whose wake-up is open can be changed.
@Suite("editing and pausing alarms", .serialized)
struct EditAndPauseTests {
  private let monday = LocalDate(year: 2026, month: 3, day: 2)

  private func at(_ iso: String) throws -> Instant { Instant(unixSeconds: try ManualDock.unixSeconds(iso)) }

  @Test("edit changes time, days, label and puck, keeps the rest, and the new time is the one that rings")
  func edit() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    let id = try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    let change = AlarmEdit(time: WallTime(hour: 6, minute: 10), label: "gym")
    #expect(try dock.request(ControlRequest(editing: id, change)).ok == true)
    var alarm = try #require(try dock.request("alarm", "list").alarms?.first)
    #expect(alarm.alarm.time == WallTime(hour: 6, minute: 10))
    #expect(alarm.alarm.label == "gym")
    #expect(alarm.alarm.recurrence == .weekly(Set(Weekday.allCases)), "the days are kept")
    #expect(try alarm.next == at("2026-03-02T06:10:00Z"))

    #expect(
      try dock.request(
        ControlRequest(editing: id, AlarmEdit(recurrence: .weekly([.tuesday]), requiresPuck: false))
      ).ok
        == true)
    alarm = try #require(try dock.request("alarm", "list").alarms?.first)
    #expect(alarm.alarm.time == WallTime(hour: 6, minute: 10), "the time is kept")
    #expect(!alarm.alarm.requiresPuck)
    #expect(try alarm.next == at("2026-03-03T06:10:00Z"))
    try dock.advance(to: "2026-03-03T06:10:00Z")
    #expect(try dock.guards().first?.ringing == true)

    let missing = try dock.request(ControlRequest(editing: 99, AlarmEdit(label: "x")))
    #expect(missing.failure?.kind == .notFound)
  }

  @Test(
    "each change says when the alarm rings next, or that it never will; enabling says it takes back a skip")
  func repliesSayTheNextRing() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    let never = "which is in the past: it will not ring"
    // A one-shot on a past date: kept, but no reply may read as if it were set.
    let added = try dock.request(
      ControlRequest(
        adding: AlarmDraft(time: WallTime(hour: 6, minute: 30), recurrence: .once(monday.adding(days: -1)))))
    #expect(added.message?.contains(never) == true, "\(String(describing: added.message))")
    let id = try #require(try dock.request("alarm", "list").alarms?.last?.alarm.id)
    #expect(try dock.request("alarm", "disable", "\(id)").message == "alarm \(id) disabled")
    let enabled = try dock.request("alarm", "enable", "\(id)").message
    #expect(enabled?.hasPrefix("alarm \(id) enabled, \(never)") == true, "\(String(describing: enabled))")
    let edited = try dock.request(ControlRequest(editing: id, AlarmEdit(time: WallTime(hour: 7, minute: 0))))
      .message
    #expect(edited?.contains(never) == true, "a new time on the past date: \(String(describing: edited))")
    let dated = try dock.request(ControlRequest(editing: id, AlarmEdit(recurrence: .once(monday)))).message
    let seven = try describe("2026-03-02T07:00:00Z")
    #expect(dated == "alarm \(id) changed, next \(seven)")

    // A skip, then enable: the skip is taken back, and the reply says so and names the ring.
    let daily = try dock.addAlarm(6, 45, days: Set(Weekday.allCases))
    let skipped = try dock.request("alarm", "skip", "\(daily)").message
    let tuesday = try describe("2026-03-03T06:45:00Z")
    #expect(skipped?.hasSuffix("next \(tuesday)") == true, "\(String(describing: skipped))")
    let unskipped = try dock.request("alarm", "enable", "\(daily)").message
    let monday645 = try describe("2026-03-02T06:45:00Z")
    #expect(unskipped == "alarm \(daily) enabled; its skip of \(monday) is cancelled, next \(monday645)")
    #expect(
      try dock.request("alarm", "enable", "\(daily)").message == "alarm \(daily) enabled, next \(monday645)",
      "no skip left to take back")

    // A one-shot whose only ring is skipped, or falls in a pause: not "in the past".
    let once = try dock.addAlarm(8, 0, on: monday.adding(days: 2))
    let skippedOnce = try dock.request("alarm", "skip", "\(once)").message
    #expect(skippedOnce?.hasSuffix("its only ring ahead is skipped or paused: it will not ring") == true)
    #expect(skippedOnce?.contains(never) == false, "\(String(describing: skippedOnce))")
    try dock.advance(to: "2026-03-02T06:45:00Z")
    #expect(try dock.guards().count == 1, "the skip taken back, it rings")
  }

  /// An instant as replies name it (the dock's zone here is UTC).
  private func describe(_ iso: String) throws -> String { ZoneRules.utc.describe(try at(iso)) }

  @Test("nothing about an alarm whose wake-up is open can be edited or paused, nor the dock paused")
  func refusedWhileOpen() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    let id = try dock.addAlarm(6, 1, days: Set(Weekday.allCases))
    let other = try dock.addAlarm(9, 0, days: Set(Weekday.allCases))
    try dock.advance(.seconds(60))
    #expect(try dock.guards().count == 1)
    for command in [
      ["alarm", "edit", "\(id)", "--label", "later"], ["alarm", "pause", "\(id)", "--until", "tomorrow"],
      ["alarm", "resume", "\(id)"],
      ["pause", "--until", "tomorrow"],
    ] {
      let reply = try dock.request(try ControlRequest(commandLine: command))
      #expect(reply.failure?.kind == .refused, "\(command)")
    }
    #expect(try dock.request("alarm", "list").alarms?.first?.alarm.label == "", "unchanged")
    #expect(
      try dock.request(ControlRequest(editing: other, AlarmEdit(label: "other"))).ok == true,
      "another alarm can change")
  }

  @Test("a paused alarm does not ring, nor count as missed, before its date, and rings on it; resume ends it")
  func pauseAnAlarm() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    let id = try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    let until = monday.adding(days: 2)
    #expect(try dock.request("alarm", "pause", "\(id)", "--until", "\(until)").ok == true)
    let view = try #require(try dock.request("alarm", "list").alarms?.first)
    #expect(view.alarm.pausedUntil == until)
    #expect(try view.next == at("2026-03-04T06:30:00Z"))

    try dock.advance(to: "2026-03-04T06:29:59Z")
    #expect(try dock.guards().isEmpty)
    #expect(try dock.history().isEmpty, "paused days are not missed")
    try dock.advance(.seconds(1))
    #expect(try dock.guards().first?.ringing == true)
    dock.bench.reader?.present(dock.puck)
    try dock.settle()

    #expect(try dock.request("alarm", "pause", "\(id)", "--until", "\(monday.adding(days: 9))").ok == true)
    #expect(try dock.request("alarm", "resume", "\(id)").ok == true)
    #expect(try dock.request("alarm", "list").alarms?.first?.next == at("2026-03-05T06:30:00Z"))

    // The first day it rings again must be after today.
    let today = try dock.request("alarm", "pause", "\(id)", "--until", "today")
    #expect(today.failure?.kind == .badRequest)
  }

  @Test("a pause that ends more than a year ahead is refused, for an alarm and for the dock; a year is taken")
  func farPauseRefused() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    let id = try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    let far = LocalDate(year: 9999, month: 12, day: 31)
    for request in [["alarm", "pause", "\(id)", "--until", "\(far)"], ["pause", "--until", "\(far)"]] {
      let reply = try dock.request(try ControlRequest(commandLine: request))
      #expect(reply.failure?.kind == .badRequest)
      #expect(reply.failure?.message.contains("at most 366 days ahead (2027-03-03)") == true)
    }
    #expect(try dock.request("alarm", "list").alarms?.first?.alarm.pausedUntil == nil, "nothing was paused")
    #expect(try dock.status().pausedUntil == nil)
    #expect(try dock.request("pause", "--until", "\(monday.adding(days: 366))").ok == true)
    #expect(try dock.status().pausedUntil == monday.adding(days: 366))
  }

  @Test("a pause of the whole dock: no alarm rings before its date, status says so; resume ends it")
  func pauseTheDock() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    try dock.addAlarm(7, 0, on: monday)
    #expect(try dock.request("pause", "--until", "tomorrow").ok == true)
    var status = try dock.status()
    #expect(status.pausedUntil == monday.adding(days: 1))
    #expect(try status.nextAlarmAt == at("2026-03-03T06:30:00Z"))
    #expect(
      try dock.request("alarm", "list").alarms?.allSatisfy { $0.alarm.pausedUntil == monday.adding(days: 1) }
        == true)

    try dock.advance(to: "2026-03-02T08:00:00Z")
    #expect(try dock.guards().isEmpty)
    #expect(try dock.history().isEmpty)
    #expect(try dock.request("resume").ok == true)
    status = try dock.status()
    #expect(status.pausedUntil == nil)
    try dock.advance(to: "2026-03-03T06:30:00Z")
    #expect(try dock.guards().first?.ringing == true)
  }
}
