import Testing

@testable import PuckCore

/// When alarms ring, on real zone files. Expected instants checked with `TZ=… date`.
@Suite struct ScheduleTests {
  typealias F = ZoneFixtures

  static let daily = Recurrence.weekly(Set(Weekday.allCases))

  func alarm(
    _ time: String, _ recurrence: Recurrence, enabled: Bool = true, skipping: LocalDate? = nil
  ) throws -> Alarm {
    Alarm(
      id: 1, time: try WallTime(parsing: time), recurrence: recurrence, enabled: enabled,
      skippedDate: skipping)
  }

  @Test func weeklyAlarmAcrossSpringForward() throws {
    let zone = try F.zone("Europe/Bucharest")
    let fires = Schedule.fires(
      time: WallTime(hour: 6, minute: 30), recurrence: .weekly([.monday, .wednesday, .friday]),
      after: try F.instant("2026-03-25T12:00:00Z"), in: zone, count: 5)
    #expect(
      try fires == [
        F.instant("2026-03-27T06:30:00+02:00"),  // Fri, still EET
        F.instant("2026-03-30T06:30:00+03:00"),  // Mon, EEST since Sunday
        F.instant("2026-04-01T06:30:00+03:00"),
        F.instant("2026-04-03T06:30:00+03:00"),
        F.instant("2026-04-06T06:30:00+03:00"),
      ])
  }

  @Test func nextFireIsStrictlyAfter() throws {
    let zone = try F.zone("Europe/Bucharest")
    let weekly = try alarm("06:30", .weekly([.friday]))
    let friday = try F.instant("2026-03-27T06:30:00+02:00")
    #expect(Schedule.nextFire(of: weekly, after: friday.adding(seconds: -1), in: zone) == friday)
    #expect(
      try Schedule.nextFire(of: weekly, after: friday, in: zone) == F.instant("2026-04-03T06:30:00+03:00"))
  }

  @Test func oneShot() throws {
    let zone = try F.zone("America/New_York")
    let once = try alarm("07:15", .once(LocalDate(year: 2026, month: 7, day: 4)))
    let at = try F.instant("2026-07-04T07:15:00-04:00")
    #expect(try Schedule.nextFire(of: once, after: F.instant("2026-01-01T00:00:00Z"), in: zone) == at)
    #expect(Schedule.nextFire(of: once, after: at.adding(seconds: -1), in: zone) == at)
    #expect(Schedule.nextFire(of: once, after: at, in: zone) == nil)
    #expect(Schedule.nextFire(of: once, after: at.adding(seconds: 3600), in: zone) == nil)
    #expect(
      Schedule.fires(
        time: once.time, recurrence: once.recurrence, after: at.adding(seconds: -60), in: zone, count: 3)
        == [at])
  }

  @Test func disabledAlarmsNeverFire() throws {
    let zone = try F.zone("Europe/Bucharest")
    let now = try F.instant("2026-03-25T12:00:00Z")
    #expect(
      try Schedule.nextFire(of: alarm("06:30", Self.daily, enabled: false), after: now, in: zone) == nil)
    let once = try alarm("06:30", .once(LocalDate(year: 2026, month: 4, day: 1)), enabled: false)
    #expect(Schedule.nextFire(of: once, after: now, in: zone) == nil)
    #expect(
      Schedule.occurrences(of: once, after: now, through: now.adding(seconds: 86_400 * 30), in: zone).isEmpty)
  }

  /// A time in the spring-forward gap rings just after the gap, on the same date; a time in
  /// the repeated hour rings once, at the first.
  @Test(arguments: [
    (
      "Europe/Bucharest", "03:30", "2026-03-28T12:00:00Z",
      ["2026-03-29T04:30:00+03:00", "2026-03-30T03:30:00+03:00"]
    ),
    (
      "Europe/Bucharest", "03:30", "2026-10-24T12:00:00Z",
      ["2026-10-25T03:30:00+03:00", "2026-10-26T03:30:00+02:00"]
    ),
    (
      "America/New_York", "02:30", "2026-03-07T12:00:00Z",
      ["2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00"]
    ),
    (
      "America/New_York", "01:30", "2026-10-31T12:00:00Z",
      ["2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"]
    ),
    (
      "Australia/Lord_Howe", "02:15", "2026-10-03T00:00:00Z",
      ["2026-10-04T02:45:00+11:00", "2026-10-05T02:15:00+11:00"]
    ),
    (
      "Australia/Lord_Howe", "01:45", "2026-04-04T00:00:00Z",
      ["2026-04-05T01:45:00+11:00", "2026-04-06T01:45:00+10:30"]
    ),
    (
      "Europe/Dublin", "01:30", "2026-03-28T12:00:00Z",
      ["2026-03-29T02:30:00+01:00", "2026-03-30T01:30:00+01:00"]
    ),
    (
      "Europe/Dublin", "01:30", "2026-10-24T12:00:00Z", ["2026-10-25T01:30:00+01:00", "2026-10-26T01:30:00Z"]
    ),
    (
      "America/Sao_Paulo", "00:30", "2018-11-03T00:00:00Z",
      ["2018-11-03T00:30:00-03:00", "2018-11-04T01:30:00-02:00"]
    ),
    (
      "America/Santiago", "23:30", "2026-04-04T12:00:00Z",
      ["2026-04-04T23:30:00-03:00", "2026-04-05T23:30:00-04:00"]
    ),
  ])
  func dailyAlarmInGapAndFold(zoneName: String, time: String, after: String, expected: [String]) throws {
    let zone = try F.zone(zoneName)
    let fires = Schedule.fires(
      time: try WallTime(parsing: time), recurrence: Self.daily, after: try F.instant(after), in: zone,
      count: expected.count)
    #expect(try fires == expected.map { try F.instant($0) }, "\(zoneName) \(time)")
  }

  /// A daily alarm rings exactly once on every local date of a year, across both changes.
  @Test(arguments: [
    ("Europe/Bucharest", 2026, "03:30"), ("Europe/Bucharest", 2026, "06:30"),
    ("America/New_York", 2026, "02:30"),
    ("America/New_York", 2026, "01:30"), ("Australia/Lord_Howe", 2026, "02:15"),
    ("Australia/Lord_Howe", 2026, "01:45"),
    ("Europe/Dublin", 2026, "01:30"), ("America/Santiago", 2026, "00:30"),
    ("America/Santiago", 2026, "23:30"),
    ("America/Sao_Paulo", 2018, "00:00"), ("Asia/Tehran", 2022, "00:30"), ("Europe/Moscow", 2014, "01:30"),
    ("Europe/Moscow", 2011, "02:30"), ("Europe/Bucharest", 2040, "03:30"),
    ("America/New_York", 2027, "00:00"),
  ])
  func dailyAlarmRingsOncePerDate(zoneName: String, year: Int, time: String) throws {
    let zone = try F.zone(zoneName)
    let wallTime = try WallTime(parsing: time)
    let january1 = LocalDate(year: year, month: 1, day: 1)
    let start = zone.instant(for: january1, at: WallTime(hour: 0, minute: 0)).adding(seconds: -1)
    let days = LocalDate.isLeap(year) ? 366 : 365
    let fires = Schedule.fires(time: wallTime, recurrence: Self.daily, after: start, in: zone, count: days)
    try #require(fires.count == days)
    var gapDates = 0
    for (index, fire) in fires.enumerated() {
      let expectedDate = january1.adding(days: index)
      let local = zone.localDateTime(at: fire)
      #expect(local.date == expectedDate, "\(zoneName) fire \(fire) is not on \(expectedDate)")
      if local.secondsOfDay != wallTime.secondsOfDay {
        // Only a time that does not exist that day may move, and only forward past the gap.
        gapDates += 1
        #expect(local.secondsOfDay > wallTime.secondsOfDay, "\(zoneName) \(expectedDate)")
        #expect(zone.offset(at: fire) > zone.offset(at: fire.adding(seconds: -86_400)))
      }
      // In a repeated hour the first is taken: no earlier instant may show the same local time.
      let localSeconds = fire.unixSeconds + Int64(local.offset)
      for shift: Int64 in [-86_400, 86_400] {
        let otherOffset = zone.offset(at: fire.adding(seconds: shift))
        let earlier = Instant(unixSeconds: localSeconds - Int64(otherOffset))
        #expect(
          !(earlier < fire && zone.offset(at: earlier) == otherOffset),
          "\(zoneName) \(expectedDate): \(earlier) shows the same local time before \(fire)")
      }
      if index > 0 { #expect(fire > fires[index - 1]) }
    }
    #expect(gapDates <= 1)
  }

  @Test func skippedDayInApiaRingsOnce() throws {
    // 2011-12-30 never happened in Apia. The Friday alarm reads the wall time at −10 and rings
    // at 07:00 on Saturday the 31st (+14) — once, though the 31st's own alarm names that same
    // instant.
    let zone = try F.zone("Pacific/Apia")
    let after = try F.instant("2011-12-28T12:00:00-10:00")
    let daily = Schedule.fires(
      time: WallTime(hour: 7, minute: 0), recurrence: Self.daily, after: after, in: zone, count: 3)
    #expect(
      try daily == [
        F.instant("2011-12-29T07:00:00-10:00"),
        F.instant("2011-12-31T07:00:00+14:00"),
        F.instant("2012-01-01T07:00:00+14:00"),
      ])
    let fridays = try alarm("07:00", .weekly([.friday]))
    #expect(
      try Schedule.nextFire(of: fridays, after: after, in: zone) == F.instant("2011-12-31T07:00:00+14:00"))
    let occurrences = Schedule.occurrences(
      of: try alarm("07:00", Self.daily), after: after, through: try F.instant("2012-01-01T12:00:00+14:00"),
      in: zone)
    #expect(occurrences.map(\.date.day) == [29, 30, 1])
  }

  @Test func yearBoundary() throws {
    let zone = try F.zone("Europe/Bucharest")
    let newYearsEve = try F.instant("2026-12-31T23:59:30+02:00")
    #expect(
      try Schedule.nextFire(of: alarm("23:59", Self.daily), after: newYearsEve, in: zone)
        == F.instant("2027-01-01T23:59:00+02:00"))
    #expect(
      try Schedule.nextFire(of: alarm("00:00", Self.daily), after: newYearsEve, in: zone)
        == F.instant("2027-01-01T00:00:00+02:00"))
    // 2027-01-01 is a Friday.
    #expect(
      try Schedule.nextFire(of: alarm("07:00", .weekly([.friday])), after: newYearsEve, in: zone)
        == F.instant("2027-01-01T07:00:00+02:00"))
    #expect(
      try Schedule.nextFire(of: alarm("07:00", .weekly([.thursday])), after: newYearsEve, in: zone)
        == F.instant("2027-01-07T07:00:00+02:00"))
  }

  @Test func leapDay() throws {
    let zone = try F.zone("Europe/Bucharest")
    let leapDay = try alarm("07:00", .once(LocalDate(parsing: "2028-02-29")))
    #expect(
      try Schedule.nextFire(of: leapDay, after: F.instant("2027-06-01T00:00:00Z"), in: zone)
        == F.instant("2028-02-29T05:00:00Z"))
    // No February 29 in 2027: a Monday alarm (2027-03-01 is a Monday) goes Feb 22 → Mar 1,
    // and a daily one Feb 28 → Mar 1.
    #expect(throws: ScheduleInputError.badDate("2027-02-29")) { try LocalDate(parsing: "2027-02-29") }
    let daily = Schedule.fires(
      time: WallTime(hour: 7, minute: 0), recurrence: Self.daily,
      after: try F.instant("2027-02-27T12:00:00Z"),
      in: zone, count: 2)
    #expect(
      daily.map { zone.localDateTime(at: $0).date } == [
        LocalDate(year: 2027, month: 2, day: 28), LocalDate(year: 2027, month: 3, day: 1),
      ])
    let tuesdays = Schedule.fires(
      time: WallTime(hour: 7, minute: 0), recurrence: .weekly([.tuesday]),
      after: try F.instant("2028-02-20T00:00:00Z"),
      in: zone, count: 2)
    #expect(
      try tuesdays == [F.instant("2028-02-22T07:00:00+02:00"), F.instant("2028-02-29T07:00:00+02:00")])
  }

  @Test func skipNext() throws {
    let zone = try F.zone("Europe/Bucharest")
    let now = try F.instant("2026-03-25T12:00:00Z")  // Wednesday
    let skipThursday = try alarm("06:30", Self.daily, skipping: LocalDate(year: 2026, month: 3, day: 26))
    #expect(
      try Schedule.nextFire(of: skipThursday, after: now, in: zone)
        == F.instant("2026-03-27T06:30:00+02:00"))
    // A skipped date already past changes nothing.
    let skipPast = try alarm("06:30", Self.daily, skipping: LocalDate(year: 2026, month: 3, day: 20))
    #expect(
      try Schedule.nextFire(of: skipPast, after: now, in: zone) == F.instant("2026-03-26T06:30:00+02:00"))
    // Skipping a weekly alarm's next date moves it a week.
    let skipFriday = try alarm(
      "06:30", .weekly([.friday]), skipping: LocalDate(year: 2026, month: 3, day: 27))
    #expect(
      try Schedule.nextFire(of: skipFriday, after: now, in: zone) == F.instant("2026-04-03T06:30:00+03:00"))
    // Skipping a one-shot's date leaves nothing.
    let date = LocalDate(year: 2026, month: 4, day: 1)
    #expect(
      try Schedule.nextFire(of: alarm("06:30", .once(date), skipping: date), after: now, in: zone) == nil)
    #expect(
      try Schedule.fires(
        time: WallTime(hour: 6, minute: 30), recurrence: Self.daily, after: now, in: zone, count: 2,
        skipping: LocalDate(year: 2026, month: 3, day: 26))
        == [F.instant("2026-03-27T06:30:00+02:00"), F.instant("2026-03-28T06:30:00+02:00")])
  }

  @Test func followsTheZoneItIsGiven() throws {
    // The same alarm in two zones, and in a POSIX TZ string zone.
    let alarm = try alarm("06:30", Self.daily)
    let now = try F.instant("2026-06-01T00:00:00Z")
    #expect(try Schedule.nextFire(of: alarm, after: now, in: .utc) == F.instant("2026-06-01T06:30:00Z"))
    #expect(
      try Schedule.nextFire(of: alarm, after: now, in: F.zone("Australia/Lord_Howe"))
        == F.instant("2026-06-02T06:30:00+10:30"))
    #expect(
      try Schedule.nextFire(of: alarm, after: now, in: ZoneRules(posixTZ: "EST5EDT,M3.2.0,M11.1.0"))
        == F.instant("2026-06-01T06:30:00-04:00"))
  }

  @Test func occurrencesBetweenTwoInstants() throws {
    let zone = try F.zone("Europe/Bucharest")
    let alarm = try alarm("06:30", Self.daily)
    let found = Schedule.occurrences(
      of: alarm, after: try F.instant("2026-03-28T06:30:00+02:00"),
      through: try F.instant("2026-03-31T06:30:00+03:00"),
      in: zone)
    #expect(found.map(\.date.day) == [29, 30, 31])
    #expect(try found.first?.instant == F.instant("2026-03-29T06:30:00+03:00"))
  }
}

@Suite struct SchedulePauseTests {
  @Test("a paused alarm has no occurrence before its date; a dock pause pauses every alarm")
  func pausedDatesAreLeftOut() throws {
    let zone = ZoneRules.utc
    let monday = LocalDate(year: 2026, month: 3, day: 2)
    var alarm = Alarm(id: 1, time: WallTime(hour: 6, minute: 30), recurrence: .weekly(Set(Weekday.allCases)))
    alarm.pausedUntil = monday.adding(days: 3)
    let start = Instant(utcDate: monday, secondsOfDay: 0)
    #expect(
      Schedule.nextFire(of: alarm, after: start, in: zone)
        == Instant(utcDate: monday.adding(days: 3), secondsOfDay: 6 * 3600 + 1800))
    #expect(
      Schedule.occurrences(of: alarm, after: start, through: start.adding(seconds: 3 * 86_400), in: zone)
        .isEmpty)
    let once = Alarm(id: 2, time: WallTime(hour: 7, minute: 0), recurrence: .once(monday))
    let book = AlarmBook(alarms: [once], nextID: 3, pausedUntil: monday.adding(days: 1))
    #expect(Schedule.nextFire(of: book.scheduled[0], after: start, in: zone) == nil)
    #expect(Schedule.nextFire(of: once, after: start, in: zone) != nil)
  }

  @Test("a pause that ends in 9999 is passed over at once: the next ring is its first day's weekday")
  func farPause() throws {
    let zone = try ZoneFixtures.zone("Europe/Berlin")
    var alarm = Alarm(id: 1, time: WallTime(hour: 6, minute: 30), recurrence: .weekly([.monday]))
    alarm.pausedUntil = LocalDate(year: 9999, month: 12, day: 1)
    let start = Instant(utcDate: LocalDate(year: 2026, month: 3, day: 2), secondsOfDay: 0)
    // 9999-12-01 is a Wednesday; the first Monday from then is the 6th, in winter time (UTC+1).
    #expect(
      Schedule.nextFire(of: alarm, after: start, in: zone)
        == Instant(utcDate: LocalDate(year: 9999, month: 12, day: 6), secondsOfDay: 5 * 3600 + 1800))
    #expect(
      Schedule.occurrences(of: alarm, after: start, through: start.adding(seconds: 400 * 86_400), in: zone)
        .isEmpty)
  }
}
