import Testing

@testable import PuckCore

/// Offsets and local-time resolution on the system's real zone files (tzdata 2025b here),
/// with expected values checked against `TZ=… date` and `zdump -v`.
@Suite struct ZoneRulesTests {
  typealias F = ZoneFixtures

  @Test func bucharestOffsetsAbbreviationsAndDST() throws {
    let zone = try F.zone("Europe/Bucharest")
    let winter = try F.instant("2026-01-15T12:00:00Z")
    let summer = try F.instant("2026-07-15T12:00:00Z")
    #expect(zone.offset(at: winter) == 7200)
    #expect(zone.abbreviation(at: winter) == "EET")
    #expect(!zone.isDST(at: winter))
    #expect(zone.offset(at: summer) == 10800)
    #expect(zone.abbreviation(at: summer) == "EEST")
    #expect(zone.isDST(at: summer))
    // The switch at 2026-03-29T01:00Z, to the second.
    #expect(try zone.offset(at: F.instant("2026-03-29T00:59:59Z")) == 7200)
    #expect(try zone.offset(at: F.instant("2026-03-29T01:00:00Z")) == 10800)
  }

  @Test func localDateTimeAppliesTheOffset() throws {
    let zone = try F.zone("Europe/Bucharest")
    let local = zone.localDateTime(at: try F.instant("2026-10-24T22:30:00Z"))
    #expect(local.date == LocalDate(year: 2026, month: 10, day: 25))
    #expect(local.secondsOfDay == 1 * 3600 + 30 * 60)
    #expect(local.offset == 10800)
    let beforeEpoch = ZoneRules.utc.localDateTime(at: Instant(unixSeconds: -1))
    #expect(beforeEpoch.date == LocalDate(year: 1969, month: 12, day: 31))
    #expect(beforeEpoch.secondsOfDay == 86_399)
  }

  /// Each row: zone, local date and time asked for, the instant RFC 5545 resolution gives.
  static let resolutions: [(zone: String, date: String, time: String, expected: String)] = [
    // Ordinary times.
    ("Europe/Bucharest", "2026-03-28", "03:30", "2026-03-28T03:30:00+02:00"),
    ("Europe/Bucharest", "2026-07-01", "06:30", "2026-07-01T06:30:00+03:00"),
    // Spring-forward gap 03:00→04:00: read with the offset before the gap.
    ("Europe/Bucharest", "2026-03-29", "03:00", "2026-03-29T01:00:00Z"),
    ("Europe/Bucharest", "2026-03-29", "03:30", "2026-03-29T04:30:00+03:00"),
    ("Europe/Bucharest", "2026-03-29", "04:00", "2026-03-29T04:00:00+03:00"),
    // Fall-back 04:00→03:00: the repeated 03:30 is the first one (EEST).
    ("Europe/Bucharest", "2026-10-25", "03:30", "2026-10-25T00:30:00Z"),
    ("Europe/Bucharest", "2026-10-25", "02:59", "2026-10-25T02:59:00+03:00"),
    ("Europe/Bucharest", "2026-10-25", "04:00", "2026-10-25T04:00:00+02:00"),
    ("America/New_York", "2026-03-08", "02:30", "2026-03-08T07:30:00Z"),
    ("America/New_York", "2026-11-01", "01:30", "2026-11-01T05:30:00Z"),
    ("America/New_York", "2026-11-01", "02:00", "2026-11-01T02:00:00-05:00"),
    // Lord Howe: 30-minute shifts, gap 02:00→02:30, repeat 01:30–02:00.
    ("Australia/Lord_Howe", "2026-10-04", "02:15", "2026-10-03T15:45:00Z"),
    ("Australia/Lord_Howe", "2026-10-04", "02:30", "2026-10-04T02:30:00+11:00"),
    ("Australia/Lord_Howe", "2026-04-05", "01:45", "2026-04-04T14:45:00Z"),
    ("Australia/Lord_Howe", "2026-04-05", "02:00", "2026-04-05T02:00:00+10:30"),
    // Dublin, negative DST: gap 01:00→02:00 in March, repeat 01:00–02:00 in October.
    ("Europe/Dublin", "2026-03-29", "01:30", "2026-03-29T01:30:00Z"),
    ("Europe/Dublin", "2026-10-25", "01:30", "2026-10-25T00:30:00Z"),
    // Santiago: rules at 24:00 on Saturday; the gap is Sunday 00:00→01:00, the repeat is
    // Saturday 23:00–24:00.
    ("America/Santiago", "2026-09-06", "00:30", "2026-09-06T04:30:00Z"),
    ("America/Santiago", "2026-04-04", "23:30", "2026-04-05T02:30:00Z"),
    // São Paulo's old DST started at midnight: 2018-11-04 00:00→01:00.
    ("America/Sao_Paulo", "2018-11-04", "00:00", "2018-11-04T03:00:00Z"),
    ("America/Sao_Paulo", "2018-11-04", "00:30", "2018-11-04T03:30:00Z"),
    // Moscow: no DST flag either side, but the offset changed (2011 +3→+4, 2014 +4→+3).
    ("Europe/Moscow", "2011-03-27", "02:30", "2011-03-27T03:30:00+04:00"),
    ("Europe/Moscow", "2014-10-26", "01:30", "2014-10-25T21:30:00Z"),
    ("Europe/Moscow", "2014-10-27", "01:30", "2014-10-27T01:30:00+03:00"),
    // Tehran dropped DST after 2022: 2022-03-22 had a gap, 2023-03-22 does not.
    ("Asia/Tehran", "2022-03-22", "00:30", "2022-03-22T01:30:00+04:30"),
    ("Asia/Tehran", "2023-03-22", "00:30", "2023-03-22T00:30:00+03:30"),
    // Apia skipped 2011-12-30: the whole day is a gap, read at −10, landing on the 31st.
    ("Pacific/Apia", "2011-12-29", "07:00", "2011-12-29T07:00:00-10:00"),
    ("Pacific/Apia", "2011-12-30", "07:00", "2011-12-31T07:00:00+14:00"),
    ("Pacific/Apia", "2011-12-31", "07:00", "2011-12-31T07:00:00+14:00"),
  ]

  @Test(arguments: resolutions)
  func resolvesLocalTimes(row: (zone: String, date: String, time: String, expected: String)) throws {
    let zone = try F.zone(row.zone)
    let instant = zone.instant(for: try LocalDate(parsing: row.date), at: try WallTime(parsing: row.time))
    #expect(try instant == F.instant(row.expected), "\(row.zone) \(row.date) \(row.time)")
  }

  @Test func dublinMarksWinterAsNegativeDST() throws {
    let zone = try F.zone("Europe/Dublin")
    let winter = try F.instant("2026-01-15T12:00:00Z")
    let summer = try F.instant("2026-07-15T12:00:00Z")
    #expect(zone.offset(at: winter) == 0)
    #expect(zone.abbreviation(at: winter) == "GMT")
    #expect(zone.isDST(at: winter))
    #expect(zone.offset(at: summer) == 3600)
    #expect(zone.abbreviation(at: summer) == "IST")
    #expect(!zone.isDST(at: summer))
    // Far past the table, the footer IST-1GMT0,M10.5.0,M3.5.0/1 must give the same.
    #expect(try zone.isDST(at: F.instant("2050-01-15T12:00:00Z")))
    #expect(try zone.offset(at: F.instant("2050-07-15T12:00:00Z")) == 3600)
  }

  @Test func lordHoweHalfHourDST() throws {
    let zone = try F.zone("Australia/Lord_Howe")
    #expect(try zone.offset(at: F.instant("2026-07-01T00:00:00Z")) == 37800)
    #expect(try zone.abbreviation(at: F.instant("2026-07-01T00:00:00Z")) == "+1030")
    #expect(try zone.offset(at: F.instant("2026-12-01T00:00:00Z")) == 39600)
    #expect(try zone.isDST(at: F.instant("2026-12-01T00:00:00Z")))
  }

  @Test func utcIsZeroAlways() throws {
    let zone = ZoneRules.utc
    #expect(try zone.offset(at: F.instant("2026-07-01T00:00:00Z")) == 0)
    #expect(zone.abbreviation(at: Instant(unixSeconds: 0)) == "UTC")
    #expect(
      try zone.instant(for: LocalDate(year: 2026, month: 3, day: 29), at: WallTime(hour: 3, minute: 30))
        == F.instant("2026-03-29T03:30:00Z"))
  }

  @Test func extremeInstantsDoNotTrap() throws {
    let zone = try F.zone("Europe/Bucharest")
    _ = zone.offset(at: Instant(unixSeconds: .max))
    _ = zone.offset(at: Instant(unixSeconds: .min))
    #expect(zone.offset(at: Instant(unixSeconds: -4_000_000_000)) == zone.initialType.offset)
  }

  /// The footer takes over after the last transition: 2040 (beyond any table in the file)
  /// follows EET-2EEST,M3.5.0/3,M10.5.0/4 exactly as zdump prints it.
  @Test func bucharestFooterDecidesFarFutureDates() throws {
    let zone = try F.zone("Europe/Bucharest")
    let last = try #require(zone.transitionTimes.last)
    #expect(try F.instant("2040-03-25T00:59:59Z").unixSeconds > last)
    #expect(try zone.offset(at: F.instant("2040-03-25T00:59:59Z")) == 7200)
    #expect(try zone.offset(at: F.instant("2040-03-25T01:00:00Z")) == 10800)
    #expect(try zone.abbreviation(at: F.instant("2040-07-04T10:33:20Z")) == "EEST")
    #expect(try zone.offset(at: F.instant("2040-10-28T00:59:59Z")) == 10800)
    #expect(try zone.offset(at: F.instant("2040-10-28T01:00:00Z")) == 7200)
    let gap = zone.instant(for: LocalDate(year: 2040, month: 3, day: 25), at: WallTime(hour: 3, minute: 30))
    #expect(try gap == F.instant("2040-03-25T04:30:00+03:00"))
    let fold = zone.instant(for: LocalDate(year: 2040, month: 10, day: 28), at: WallTime(hour: 3, minute: 30))
    #expect(try fold == F.instant("2040-10-28T00:30:00Z"))
  }

  /// Where the table has transitions (through 2037 in a "fat" file, or the last change in a
  /// "slim" one), the footer alone must agree with it hour by hour.
  @Test(arguments: [
    "Europe/Bucharest", "America/New_York", "Australia/Lord_Howe", "Europe/Dublin", "America/Santiago",
  ])
  func footerAgreesWithTable(name: String) throws {
    let zone = try F.zone(name)
    let footer = try #require(zone.rule)
    let start = try F.instant("2026-01-01T00:00:00Z").unixSeconds
    let end = min(zone.transitionTimes.last ?? start, try F.instant("2038-01-01T00:00:00Z").unixSeconds)
    var t = start
    while t < end {
      #expect(zone.type(at: t) == footer.type(at: t), "\(name) at \(Instant(unixSeconds: t))")
      t += 3600
    }
  }

  /// A sample of instants from 1970 to 2045 in many zones, against glibc's own reading of the
  /// same files (`TZ=zone date -f … +%::z %Z`).
  @Test(arguments: [
    "Europe/Bucharest", "America/New_York", "Australia/Lord_Howe", "Europe/Dublin", "America/Santiago",
    "America/Sao_Paulo", "Pacific/Apia", "Asia/Tehran", "Europe/Moscow", "Asia/Jerusalem", "Asia/Gaza",
    "America/Nuuk", "Asia/Kathmandu", "Pacific/Chatham", "Africa/Casablanca", "UTC",
  ])
  func agreesWithGlibc(name: String) throws {
    let zone = try F.zone(name)
    var instants: [Int64] = []
    // A step that is not a whole number of hours or days, so samples drift across each day.
    var t: Int64 = 0
    while t < 2_366_841_600 {  // 2045-01-01
      instants.append(t)
      t += 86_400 * 3 + 3_599
    }
    for transition in zone.transitionTimes where transition > 0 {
      instants += [transition - 1, transition]
    }
    let expected = try F.glibcLocalTimes(tz: name, at: instants)
    try #require(expected.count == instants.count)
    var mismatches = 0
    for (instant, glibc) in zip(instants, expected) {
      let type = zone.type(at: instant)
      if type.offset != glibc.offset || type.abbreviation != glibc.abbreviation {
        mismatches += 1
        if mismatches <= 5 {
          Issue.record(
            "\(name) at \(instant): \(type.offset) \(type.abbreviation), glibc \(glibc.offset) \(glibc.abbreviation)"
          )
        }
      }
    }
    #expect(mismatches == 0)
  }
}
