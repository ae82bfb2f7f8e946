import Testing

@testable import PuckCore

/// `puckctl stats` and `history --csv` as pure functions of history entries (docs/DESIGN.md C8).
struct WakeStatsTests {
  /// Mon 2026-03-02 06:30 UTC.
  private static let monday = Instant(unixSeconds: 1_772_433_000)

  private func entry(
    _ outcome: HistoryEntry.Outcome, day: Int, took seconds: Int64 = 300, bypasses: Int = 0,
    label: String = ""
  ) -> HistoryEntry {
    let scheduled = Self.monday.adding(seconds: Int64(day) * 86_400)
    let occurrence = AlarmOccurrence(
      alarmID: 1, label: label, time: WallTime(hour: 6, minute: 30), scheduledAt: scheduled,
      requiresPuck: true,
      isOneShot: false)
    var entry = HistoryEntry(
      outcome: outcome, occurrence: occurrence, openedAt: outcome == .missed ? nil : scheduled,
      closedAt: scheduled.adding(seconds: outcome == .missed ? 0 : seconds), bypassCount: bypasses,
      rings: bypasses + 1)
    if outcome == .woke {
      entry.puck = "…:33:44"
      entry.reader = "kitchen"
    }
    return entry
  }

  @Test(
    "the streak counts scans back from the newest; an override or a missed alarm ends it, a stop does not")
  func streak() {
    let entries = [
      entry(.woke, day: 0), entry(.woke, day: 1), entry(.woke, day: 2), entry(.overridden, day: 3),
      entry(.woke, day: 4), entry(.stopped, day: 5), entry(.woke, day: 6),
    ]
    let stats = WakeStats(entries: entries, zone: .utc)
    #expect(stats.streak == 2)
    #expect(stats.longestStreak == 3)
    #expect((stats.scans, stats.stopped, stats.overrides, stats.missed) == (5, 1, 1, 0))
    #expect(WakeStats(entries: entries + [entry(.missed, day: 7)], zone: .utc).streak == 0)
    #expect(WakeStats(entries: [], zone: .utc).streak == 0)
  }

  @Test("time to get up is the median from the first ring to the scan, per weekday in the dock's zone")
  func medianPerWeekday() throws {
    // Three Mondays (odd count: the middle one) and two Tuesdays (even: the mean of the two).
    let entries = [
      entry(.woke, day: 0, took: 120), entry(.woke, day: 7, took: 900), entry(.woke, day: 14, took: 300),
      entry(.woke, day: 1, took: 60), entry(.woke, day: 8, took: 181), entry(.overridden, day: 2, took: 5),
    ]
    let stats = WakeStats(entries: entries, zone: .utc)
    #expect(stats.byWeekday.map(\.weekday) == ["mon", "tue", "wed", "thu", "fri", "sat", "sun"])
    #expect(stats.byWeekday[0].medianSecondsToGetUp == 300)
    #expect(stats.byWeekday[0].scans == 3)
    #expect(stats.byWeekday[1].medianSecondsToGetUp == 120)
    #expect(stats.byWeekday[2].medianSecondsToGetUp == nil, "an override is no time to get up")
    // 06:30 UTC on a Monday is 19:30 on the Sunday eleven hours west: the dock's day counts.
    let west = WakeStats(entries: [entry(.woke, day: 0)], zone: try ZoneRules(posixTZ: "SST11"))
    #expect(west.byWeekday[6].scans == 1, "Sunday 19:30 at UTC-11")
    #expect(west.byWeek.first?.weekOf.description == "2026-02-23", "and its week began the Monday before")
  }

  @Test("weeks start on Monday; each counts wake-ups, bypasses, overrides and missed alarms")
  func perWeek() {
    let entries = [
      entry(.woke, day: 0, bypasses: 2), entry(.overridden, day: 6, bypasses: 3), entry(.missed, day: 7),
      entry(.woke, day: 9, bypasses: 1),
    ]
    let stats = WakeStats(entries: entries, zone: .utc)
    #expect(stats.byWeek.map(\.weekOf.description) == ["2026-03-02", "2026-03-09"])
    #expect(stats.byWeek[0].wakeUps == 2)
    #expect(stats.byWeek[0].bypasses == 5)
    #expect(stats.byWeek[0].overrides == 1)
    #expect(stats.byWeek[1].wakeUps == 1)
    #expect(stats.byWeek[1].missed == 1)
    #expect(stats.bypasses == 6)
  }

  @Test("CSV rows: RFC 4180 quoting, instants with the zone's offset, a formula label defused")
  func csv() throws {
    let berlin = try ZoneRules(posixTZ: "CET-1CEST,M3.5.0,M10.5.0/3")
    let row = HistoryCSV.row(
      entry(.woke, day: 0, took: 672, bypasses: 2, label: "work, \"early\""), zone: berlin)
    #expect(
      row
        == "1,06:30,\"work, \"\"early\"\"\",2026-03-02T07:30:00+01:00,2026-03-02T07:30:00+01:00,"
        + "2026-03-02T07:41:12+01:00,woke,672,2,3,…:33:44,kitchen")
    #expect(
      HistoryCSV.header.split(separator: ",").count == row.split(separator: ",").count - 1, "one quoted comma"
    )
    let formula = HistoryCSV.row(entry(.missed, day: 0, label: "=HYPERLINK(\"x\")"), zone: .utc)
    #expect(formula.contains(",\"'=HYPERLINK(\"\"x\"\")\","), "\(formula)")
    #expect(
      formula.contains(",,2026-03-02T06:30:00Z,missed,,0,1,,"), "no first ring, no time, no puck: \(formula)")
    // A formula sign followed by a combining mark or a joiner is one character that is not the
    // sign (found by review): still defused. A tab or carriage return first, too.
    for label in ["=\u{301}1+1", "=\u{200D}1+1", "\t=1+1", "@\u{301}SUM(A1)"] {
      #expect(HistoryCSV.field(label).unicodeScalars.first == "'", "\(label.unicodeScalars.map(\.value))")
    }
    #expect(HistoryCSV.field("a\r\nb") == "\"a\r\nb\"", "a CR LF (one character) is quoted")
  }
}
