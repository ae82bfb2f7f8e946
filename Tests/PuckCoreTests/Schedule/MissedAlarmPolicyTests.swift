import Testing

@testable import PuckCore

/// How late an alarm may still ring, with a manual clock: instants chosen by hand.
@Suite struct MissedAlarmPolicyTests {
  typealias F = ZoneFixtures

  @Test func graceBoundaries() throws {
    let policy = MissedAlarmPolicy()
    let scheduled = try F.instant("2026-03-30T06:30:00+03:00")
    #expect(policy.grace == .seconds(1800))
    #expect(policy.decide(scheduled: scheduled, now: scheduled.adding(seconds: -1)) == .notYetDue)
    #expect(policy.decide(scheduled: scheduled, now: scheduled) == .ringNow)
    #expect(policy.decide(scheduled: scheduled, now: scheduled.adding(seconds: 1800)) == .ringNow)
    #expect(policy.decide(scheduled: scheduled, now: scheduled.adding(seconds: 1801)) == .missed)
    let strict = MissedAlarmPolicy(grace: .seconds(60))
    #expect(strict.decide(scheduled: scheduled, now: scheduled.adding(seconds: 60)) == .ringNow)
    #expect(strict.decide(scheduled: scheduled, now: scheduled.adding(seconds: 61)) == .missed)
  }

  @Test func catchUpRingsTheLatestWithinGraceAndRecordsTheRest() throws {
    let zone = try F.zone("Europe/Bucharest")
    let alarm = Alarm(id: 3, time: WallTime(hour: 6, minute: 30), recurrence: .weekly(Set(Weekday.allCases)))
    let lastEvaluated = try F.instant("2026-03-30T05:00:00+03:00")  // Monday, before the alarm
    let wednesday = try F.instant("2026-04-01T06:30:00+03:00")

    let onTime = MissedAlarmPolicy().catchUp(
      alarm, lastEvaluated: lastEvaluated, now: wednesday.adding(seconds: 1800), in: zone)
    #expect(onTime.ring == Occurrence(date: LocalDate(year: 2026, month: 4, day: 1), instant: wednesday))
    #expect(
      onTime.missed.map(\.date) == [
        LocalDate(year: 2026, month: 3, day: 30), LocalDate(year: 2026, month: 3, day: 31),
      ])

    let tooLate = MissedAlarmPolicy().catchUp(
      alarm, lastEvaluated: lastEvaluated, now: wednesday.adding(seconds: 1801), in: zone)
    #expect(tooLate.ring == nil)
    #expect(tooLate.missed.map(\.date.day) == [30, 31, 1])

    let nothingDue = MissedAlarmPolicy().catchUp(
      alarm, lastEvaluated: wednesday, now: wednesday.adding(seconds: 3600), in: zone)
    #expect(nothingDue == MissedAlarmPolicy.CatchUp(ring: nil, missed: []))

    var disabled = alarm
    disabled.enabled = false
    let none = MissedAlarmPolicy().catchUp(disabled, lastEvaluated: lastEvaluated, now: wednesday, in: zone)
    #expect(none.ring == nil && none.missed.isEmpty)
  }

  @Test func catchUpLeavesOutTheSkippedDate() throws {
    let zone = try F.zone("Europe/Bucharest")
    let alarm = Alarm(
      id: 3, time: WallTime(hour: 6, minute: 30), recurrence: .weekly(Set(Weekday.allCases)),
      skippedDate: LocalDate(year: 2026, month: 3, day: 31))
    let result = MissedAlarmPolicy().catchUp(
      alarm, lastEvaluated: try F.instant("2026-03-30T05:00:00+03:00"),
      now: try F.instant("2026-04-01T06:40:00+03:00"),
      in: zone)
    #expect(result.ring?.date == LocalDate(year: 2026, month: 4, day: 1))
    #expect(result.missed.map(\.date) == [LocalDate(year: 2026, month: 3, day: 30)])
  }

  @Test func oneShotMissedWhileAsleep() throws {
    let zone = try F.zone("America/New_York")
    let once = Alarm(
      id: 9, time: WallTime(hour: 7, minute: 0), recurrence: .once(LocalDate(year: 2026, month: 11, day: 1)))
    let scheduled = try F.instant("2026-11-01T07:00:00-05:00")
    let late = MissedAlarmPolicy().catchUp(
      once, lastEvaluated: scheduled.adding(seconds: -3600), now: scheduled.adding(seconds: 2 * 3600),
      in: zone)
    #expect(late.ring == nil)
    #expect(late.missed == [Occurrence(date: LocalDate(year: 2026, month: 11, day: 1), instant: scheduled)])
  }
}
