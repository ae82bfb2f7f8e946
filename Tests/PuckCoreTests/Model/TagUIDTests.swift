import Foundation
import Testing

@testable import PuckCore

@Suite("Tag UIDs")
struct TagUIDTests {
  @Test(
    "accepts 4, 7 and 10 byte UIDs in the usual spellings",
    arguments: [
      ("04:A2:3B:11:22:33:44", "04:A2:3B:11:22:33:44"),
      ("04a23b11223344", "04:A2:3B:11:22:33:44"),
      ("04-a2-3b-11-22-33-44", "04:A2:3B:11:22:33:44"),
      ("  DE AD BE EF ", "DE:AD:BE:EF"),
      ("01:02:03:04:05:06:07:08:09:0A", "01:02:03:04:05:06:07:08:09:0A"),
    ])
  func accepts(input: String, canonical: String) throws {
    #expect(try TagUID(parsing: input).description == canonical)
  }

  @Test(
    "rejects what is not a UID",
    arguments: [
      ("", UIDError.empty),
      ("04:A2:3B", .badLength(3)),
      ("0102030405", .badLength(5)),
      ("04:A2:3B:11:22:33:44:55", .badLength(8)),
      ("04:A2:3G:11", .malformed("04:A2:3G:11")),
      ("4:A2:3B:11", .malformed("4:A2:3B:11")),
      ("04A23", .malformed("04A23")),
      ("04:A2-3B:11", .malformed("04:A2-3B:11")),
      ("04::A2:3B:11", .malformed("04::A2:3B:11")),
      ("+4:A2:3B:11", .malformed("+4:A2:3B:11")),
    ])
  func rejects(input: String, error: UIDError) {
    #expect(throws: error) { try TagUID(parsing: input) }
  }

  @Test("a phone's random 4-byte UID cannot be paired, a real 4-byte one can")
  func randomUID() throws {
    let phone = try TagUID(parsing: "08:12:34:56")
    #expect(phone.isRandom)
    #expect(throws: UIDError.randomUID("…:34:56")) { try phone.validateForPairing() }
    try TagUID(parsing: "DE:AD:BE:EF").validateForPairing()
    try TagUID(parsing: "08:12:34:56:78:9A:BC").validateForPairing()
  }

  @Test("logs see only the last two bytes")
  func masked() throws {
    #expect(try TagUID(parsing: "04:A2:3B:11:22:33:44").masked == "…:33:44")
  }

  @Test("JSON carries the colon form and rejects bad UIDs")
  func codable() throws {
    let uid = try TagUID(parsing: "04a23b11223344")
    let data = try JSONEncoder().encode([uid])
    #expect(String(decoding: data, as: UTF8.self) == #"["04:A2:3B:11:22:33:44"]"#)
    #expect(try JSONDecoder().decode([TagUID].self, from: data) == [uid])
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode([TagUID].self, from: Data(#"["04:A2"]"#.utf8))
    }
  }
}

@Suite("Dates, times and instants")
struct CalendarTests {
  @Test("date arithmetic round-trips across centuries, with weekdays right")
  func dates() throws {
    #expect(LocalDate(daysSinceEpoch: 0) == LocalDate(year: 1970, month: 1, day: 1))
    #expect(LocalDate(year: 1970, month: 1, day: 1).weekday == .thursday)
    #expect(LocalDate(year: 2026, month: 12, day: 2).weekday == .wednesday)
    #expect(
      LocalDate(year: 2028, month: 2, day: 29).adding(days: 1) == LocalDate(year: 2028, month: 3, day: 1))
    #expect(
      LocalDate(year: 2026, month: 12, day: 31).adding(days: 1) == LocalDate(year: 2027, month: 1, day: 1))
    for days in stride(from: -800_000, to: 800_000, by: 997) {
      #expect(LocalDate(daysSinceEpoch: days).daysSinceEpoch == days)
    }
  }

  @Test("dates that do not exist are refused")
  func badDates() {
    for text in ["2026-02-29", "2026-13-01", "2026-00-10", "2026-4-01", "20260401", "2026-04-31", "tomorrow"]
    {
      #expect(throws: ScheduleInputError.badDate(text)) { try LocalDate(parsing: text) }
    }
    #expect((try? LocalDate(parsing: "2028-02-29")) != nil)
  }

  @Test("times are HH:MM or HH:MM:SS on a 24-hour clock")
  func times() throws {
    #expect(try WallTime(parsing: "06:30") == WallTime(hour: 6, minute: 30))
    #expect(try WallTime(parsing: "6:30").description == "06:30")
    #expect(try WallTime(parsing: "23:59:59").description == "23:59:59")
    for text in ["24:00", "06:60", "06:30:60", "0630", "06:3", "-1:30", "06:30:", "aa:bb", ""] {
      #expect(throws: ScheduleInputError.badTime(text)) { try WallTime(parsing: text) }
    }
  }

  @Test("day sets by name and by group")
  func days() throws {
    #expect(try Weekday.parseSet("mon,wed,FRI") == [.monday, .wednesday, .friday])
    #expect(try Weekday.parseSet("weekdays").count == 5)
    #expect(try Weekday.parseSet("weekends") == [.saturday, .sunday])
    #expect(try Weekday.parseSet("daily").count == 7)
    #expect(throws: ScheduleInputError.badDay("funday")) { try Weekday.parseSet("mon,funday") }
    #expect(throws: ScheduleInputError.badDay("")) { try Weekday.parseSet("mon,,tue") }
  }

  @Test("instants print and parse as ISO 8601")
  func instants() {
    let instant = Instant(unixSeconds: 1_774_841_400)
    #expect(instant.description == "2026-03-30T03:30:00Z")
    #expect(
      Instant.iso8601(unixSeconds: instant.unixSeconds, offset: 3 * 3600) == "2026-03-30T06:30:00+03:00")
    #expect(
      Instant.iso8601(unixSeconds: instant.unixSeconds, offset: -(3 * 3600 + 1800))
        == "2026-03-30T00:00:00-03:30")
    #expect(Instant(iso8601: "2026-03-30T06:30:00+03:00") == instant)
    #expect(Instant(iso8601: "2026-03-30T03:30Z") == instant)
    #expect(Instant(iso8601: "2026-03-30T03:30:00") == nil, "an instant needs an offset")
    #expect(Instant(iso8601: "yesterday") == nil)
    #expect(Instant(unixSeconds: -1).description == "1969-12-31T23:59:59Z")
  }
}
