import Testing

@testable import PuckCore

/// POSIX TZ strings on their own (a `TZ=` value), checked against glibc reading the same string.
@Suite struct PosixTimeZoneTests {
  typealias F = ZoneFixtures

  static let strings = [
    "EST5EDT,M3.2.0,M11.1.0",
    "EST5EDT",  // no rules: the US rules, as glibc
    "EET-2EEST,M3.5.0/3,M10.5.0/4",
    "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
    "IST-1GMT0,M10.5.0,M3.5.0/1",  // Europe/Dublin: "DST" in winter
    "<-04>4<-03>,M9.1.6/24,M4.1.6/24",  // America/Santiago: 24:00
    "IST-2IDT,M3.4.4/26,M10.5.0",  // Asia/Jerusalem: 26:00
    "EET-2EEST,M3.4.4/50,M10.4.4/50",  // Asia/Gaza: 50 hours
    "<-02>2<-01>,M3.5.0/-1,M10.5.0/0",  // America/Nuuk: a negative time
    "EST5EDT,J60/2,J300/2",  // Jn: February 29 never counted
    "EST5EDT,59/2,299/2",  // n: February 29 counted
    "NZST-12:00:00NZDT-13:00:00,M9.5.0,M4.1.0/3",
    "<+0545>-5:45",
    "UTC0",
  ]

  @Test(arguments: strings)
  func agreesWithGlibc(text: String) throws {
    let zone = try ZoneRules(posixTZ: text)
    var instants: [Int64] = []
    var t: Int64 = 1_700_000_000
    while t < 2_000_000_000 {
      instants.append(t)
      t += 86_400 + 1_801
    }
    let expected = try F.glibcLocalTimes(tz: text, at: instants)
    try #require(expected.count == instants.count)
    var mismatches = 0
    for (instant, glibc) in zip(instants, expected) {
      let type = zone.type(at: instant)
      if type.offset != glibc.offset || type.abbreviation != glibc.abbreviation {
        mismatches += 1
        if mismatches <= 3 {
          Issue.record("\(text) at \(instant): \(type.offset) \(type.abbreviation) vs \(glibc)")
        }
      }
    }
    #expect(mismatches == 0)
  }

  @Test func julianAndZeroBasedDaysInALeapYear() throws {
    // 2028 is a leap year: J60 is March 1, day 59 is February 29.
    let julian = try ZoneRules(posixTZ: "EST5EDT,J60/2,J300/2")
    #expect(try julian.offset(at: F.instant("2028-02-29T12:00:00-05:00")) == -18000)
    #expect(try julian.offset(at: F.instant("2028-03-01T12:00:00-04:00")) == -14400)
    let zeroBased = try ZoneRules(posixTZ: "EST5EDT,59/2,299/2")
    #expect(try zeroBased.offset(at: F.instant("2028-02-28T12:00:00-05:00")) == -18000)
    #expect(try zeroBased.offset(at: F.instant("2028-02-29T12:00:00-04:00")) == -14400)
  }

  @Test func transitionTimesBeyondADayAndNegative() throws {
    // Gaza 2030: the fourth Thursday of March is the 28th; 50:00 after its midnight is
    // Saturday 30th 02:00 local.
    let gaza = try ZoneRules(posixTZ: "EET-2EEST,M3.4.4/50,M10.4.4/50")
    #expect(try gaza.offset(at: F.instant("2030-03-30T01:59:59+02:00")) == 7200)
    #expect(try gaza.offset(at: F.instant("2030-03-30T03:00:00+03:00")) == 10800)
    // Nuuk 2030: last Sunday of March is the 31st; −1:00 is Saturday 30th 23:00 local.
    let nuuk = try ZoneRules(posixTZ: "<-02>2<-01>,M3.5.0/-1,M10.5.0/0")
    #expect(try nuuk.offset(at: F.instant("2030-03-30T22:59:59-02:00")) == -7200)
    #expect(try nuuk.offset(at: F.instant("2030-03-31T00:00:00-01:00")) == -3600)
    #expect(try nuuk.abbreviation(at: F.instant("2030-06-01T00:00:00Z")) == "-01")
  }

  @Test func daylightAllYear() throws {
    // RFC 8536 §3.3.1: DST that ends when it starts again lasts all year.
    let zone = try ZoneRules(posixTZ: "EST5EDT,0/0,J365/25")
    for month in 1...12 {
      let instant = Instant(utcDate: LocalDate(year: 2031, month: month, day: 1), secondsOfDay: 43_200)
      #expect(zone.offset(at: instant) == -14400, "month \(month)")
      #expect(zone.isDST(at: instant))
    }
  }

  @Test func buildsFromTheStringAlone() throws {
    let zone = try ZoneRules(posixTZ: "EST5EDT,M3.2.0,M11.1.0")
    #expect(zone.name == "EST5EDT,M3.2.0,M11.1.0")
    let gap = zone.instant(for: LocalDate(year: 2026, month: 3, day: 8), at: WallTime(hour: 2, minute: 30))
    #expect(try gap == F.instant("2026-03-08T07:30:00Z"))
    let fold = zone.instant(for: LocalDate(year: 2026, month: 11, day: 1), at: WallTime(hour: 1, minute: 30))
    #expect(try fold == F.instant("2026-11-01T05:30:00Z"))
  }

  @Test(arguments: [
    "", "E5", ":Europe/Paris", "EST", "EST5EDT,M3.2.0", "EST5EDT,M13.2.0,M11.1.0", "EST5EDT,M3.6.0,M11.1.0",
    "EST5EDT,M3.2.7,M11.1.0", "EST5EDT,J0,J300", "EST5EDT,366,300", "EST25", "EST5:60", "<AB>5",
    "<+05", "EST5EDT,M3.2.0/168,M11.1.0", "EST5EDT,M3.2.0,M11.1.0x",
  ])
  func rejectsBadStrings(text: String) throws {
    // A Result, not the error #expect(throws:) returns: that needs Swift Testing 6.1.
    let parsed = Result { () throws(ZoneRulesError) in try ZoneRules(posixTZ: text) }
    guard case .failure(let error) = parsed else {
      Issue.record("'\(text)' was accepted")
      return
    }
    #expect(error.description.hasPrefix("'\(text)' is not a POSIX TZ rule"))
  }
}
