import Foundation
import PuckCore
import PuckDaemon
import PuckSystem
import Testing

/// Issue 10 item 3 through the manual clock: the wall clock stepped by minutes, hours and days
/// with alarms pending and a guard deferred; DST nights in several zones; boards that boot with
/// their clock in 1970 or 2000. The cases and what held are tabled in docs/RELIABILITY.md.
@Suite("puckd across clock steps, DST and clockless boots", .serialized)
struct TimeCasesTests {
  /// A step of the wall clock, and whether NTP vouches for the time after it.
  struct Step: CustomTestStringConvertible, Sendable {
    let seconds: Int64
    let synchronized: Bool
    var testDescription: String {
      "\(seconds >= 0 ? "+" : "")\(seconds) s\(synchronized ? "" : ", unsynchronised")"
    }
  }

  static let steps: [Step] = [
    Step(seconds: 5 * 60, synchronized: true), Step(seconds: 2 * 3600, synchronized: true),
    Step(seconds: 2 * 86_400 - 1800, synchronized: true), Step(seconds: -5 * 60, synchronized: true),
    Step(seconds: -50 * 60, synchronized: true), Step(seconds: -3 * 3600, synchronized: false),
    Step(seconds: -2 * 86_400, synchronized: false),
  ]

  @Test(
    "a step with alarms pending and a guard deferred: no occurrence twice, none lost, the retry keeps its delay",
    arguments: steps)
  func stepWithAlarmsPending(_ step: Step) throws {
    let dock = try ManualDock(
      at: "2026-03-02T06:00:00Z", config: "[enforcement]\nretry_delay = 5min\nring_timeout = 2min\n")
    try dock.start()
    let daily = Set(Weekday.allCases)
    try dock.addAlarm(6, 1, days: daily)
    try dock.addAlarm(6, 30, days: daily)
    try dock.addAlarm(9, 0, on: LocalDate(year: 2026, month: 3, day: 2))
    try dock.advance(.seconds(60))
    // 06:01 rings, nobody stops it, and its timeout is the bypass: its guard is deferred.
    try dock.advance(.seconds(120))
    try #require(try dock.guards().first?.ringing == false)
    let start = dock.now

    dock.clock.setSynchronized(step.synchronized)
    try dock.stepWall(by: .seconds(step.seconds))
    let retry = try #require(try dock.guards().first?.retryAt)
    #expect(retry == dock.now.adding(seconds: 300), "the deferred retry is still five real minutes away")

    // Four days pass; whoever is woken gets up and scans the puck within the minute. The
    // retry rings on the way, at its five real minutes. Without NTP the clock only catches up
    // with the handled point by running; a short step back is vouched for after three hours.
    var retryRangAt: Instant?
    let wallAtStep = dock.now
    for minute in 1...(4 * 1440) {
      try dock.advance(.seconds(60))
      if !step.synchronized && minute == 180 && step.seconds >= -3 * 3600 { dock.clock.setSynchronized(true) }
      guard let open = try dock.guards().first(where: \.ringing) else { continue }
      if retryRangAt == nil, open.bypassCount == 1 { retryRangAt = dock.now }
      dock.bench.reader?.present(dock.puck)
      try dock.settle()
    }
    #expect(retryRangAt == wallAtStep.adding(seconds: 300))

    let history = try dock.request("history", "--limit", "1000").history ?? []
    let keys = history.map { "\($0.occurrence.alarmID)@\($0.occurrence.scheduledAt.unixSeconds)" }
    #expect(Set(keys).count == keys.count, "no occurrence is recorded twice: \(keys)")
    // Every occurrence from the start to where the clock ends is in history once: rung (woke)
    // or missed, none lost. (A clock stepped back re-lives handled time without ringing.)
    let end = dock.now
    var expected: Set<String> = []
    for day in 0..<8 {
      let date = LocalDate(year: 2026, month: 3, day: 2).adding(days: day)
      for (id, hour, minute) in [(1, 6, 1), (2, 6, 30)] {
        let at = Instant(utcDate: date, secondsOfDay: hour * 3600 + minute * 60)
        if at >= start.adding(seconds: -180) && at <= end { expected.insert("\(id)@\(at.unixSeconds)") }
      }
    }
    let nine = Instant(utcDate: LocalDate(year: 2026, month: 3, day: 2), secondsOfDay: 9 * 3600)
    if nine <= end { expected.insert("3@\(nine.unixSeconds)") }
    #expect(Set(keys) == expected)
    #expect(try dock.guards().allSatisfy { !$0.ringing || dock.now.seconds(since: $0.openedAt) < 180 })
  }

  struct Night: CustomTestStringConvertible, Sendable {
    let zone: String
    let start: String
    let hour: Int
    let minute: Int
    /// When the alarm rings on the night, and a moment after which it must not ring again.
    let rings: String
    let quietUntil: String
    var testDescription: String { "\(zone) \(start.prefix(10))" }
  }

  static let nights: [Night] = [
    // Spring gaps: the time is read with the offset from before the gap (RFC 5545).
    Night(
      zone: "Europe/Berlin", start: "2026-03-28T22:00:00Z", hour: 2, minute: 30,
      rings: "2026-03-29T01:30:00Z",
      quietUntil: "2026-03-29T22:00:00Z"),
    Night(
      zone: "Europe/London", start: "2026-03-28T22:00:00Z", hour: 1, minute: 30,
      rings: "2026-03-29T01:30:00Z",
      quietUntil: "2026-03-29T22:00:00Z"),
    Night(
      zone: "America/New_York", start: "2026-03-08T03:00:00Z", hour: 2, minute: 30,
      rings: "2026-03-08T07:30:00Z", quietUntil: "2026-03-09T03:00:00Z"),
    Night(
      zone: "Australia/Sydney", start: "2026-10-03T10:00:00Z", hour: 2, minute: 30,
      rings: "2026-10-03T16:30:00Z", quietUntil: "2026-10-04T10:00:00Z"),
    // Autumn folds: the first of the two times, once.
    Night(
      zone: "Europe/Berlin", start: "2026-10-24T22:00:00Z", hour: 2, minute: 30,
      rings: "2026-10-25T00:30:00Z",
      quietUntil: "2026-10-25T22:00:00Z"),
    Night(
      zone: "America/New_York", start: "2026-11-01T03:00:00Z", hour: 1, minute: 30,
      rings: "2026-11-01T05:30:00Z", quietUntil: "2026-11-02T03:00:00Z"),
    Night(
      zone: "Australia/Sydney", start: "2026-04-04T10:00:00Z", hour: 2, minute: 30,
      rings: "2026-04-04T15:30:00Z", quietUntil: "2026-04-05T10:00:00Z"),
  ]

  @Test(
    "a DST night: a daily alarm in the gap or the fold rings once, at the RFC 5545 instant", arguments: nights
  )
  func dstNight(_ night: Night) throws {
    let dock = try ManualDock(at: night.start, zone: night.zone)
    try dock.start()
    try dock.addAlarm(night.hour, night.minute, days: Set(Weekday.allCases))
    let rings = try ManualDock.unixSeconds(night.rings)
    try dock.advance(.seconds(rings - 1 - dock.clock.wallSeconds()))
    #expect(try dock.guards().isEmpty, "not a second early")
    try dock.advance(.seconds(1))
    #expect(try dock.guards().first?.ringing == true)
    dock.bench.reader?.present(dock.puck)
    try dock.settle()
    try dock.advance(to: night.quietUntil)
    #expect(try dock.guards().isEmpty, "once on the night")
    #expect(dock.bench.audio?.starts == 1)
  }

  @Test(
    "a board without an RTC boots in 1970 or 2000: nothing rings or is missed until NTP sets the clock",
    arguments: [Int64(10), 946_684_800])
  func clocklessBoot(_ bootWall: Int64) throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    try dock.addAlarm(7, 0, on: LocalDate(year: 2026, month: 3, day: 2))
    dock.stop()

    dock.clock.setWall(to: .seconds(bootWall))
    dock.clock.setSynchronized(false)
    try dock.start()
    try dock.advance(.seconds(3 * 86_400))
    #expect(try dock.guards().isEmpty)
    #expect(try dock.history().isEmpty, "nothing from the board's idea of the past")

    dock.clock.setWall(to: .seconds(try ManualDock.unixSeconds("2026-03-02T06:20:00Z")))
    dock.clock.setSynchronized(true)
    try dock.settle()
    try dock.advance(.seconds(10 * 60))
    #expect(try dock.guards().first?.ringing == true, "06:30 rings on time once the clock is set")
    dock.bench.reader?.present(dock.puck)
    try dock.settle()
    try dock.advance(.seconds(30 * 60))
    #expect(try dock.guards().first?.ringing == true, "and the one-shot at 07:00")
    #expect(try dock.history().filter { $0.outcome == .missed }.isEmpty)
  }

  @Test("a suspend over an alarm and a retry: on resume both ring at once, and one scan ends the wake-up")
  func suspendOverAlarmAndRetry() throws {
    let dock = try ManualDock(config: "[enforcement]\nretry_delay = 5min\n")
    try dock.start()
    let today = LocalDate(year: 2026, month: 3, day: 2)
    try dock.addAlarm(6, 1, on: today)
    try dock.addAlarm(6, 20, on: today)
    try dock.advance(.seconds(60))
    try dock.stopOnceHeard()
    // Asleep from 06:01:20 to 06:26:20: the retry (06:01:30) and the 06:20 alarm fell due meanwhile.
    dock.clock.suspend(for: .seconds(25 * 60))
    try dock.settle()
    let open = try dock.guards()
    #expect(open.count == 2)
    #expect(open.contains { $0.ringing })
    #expect(dock.bench.audio?.isPlaying == true)
    dock.bench.reader?.present(dock.puck)
    try dock.settle()
    #expect(try dock.guards().isEmpty)
    let history = try dock.history()
    #expect(history.filter { $0.outcome == .woke }.count == 2)
    #expect(history.filter { $0.outcome == .missed }.isEmpty)
  }
}
