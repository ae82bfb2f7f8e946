/// What `puckctl stats` shows (docs/DESIGN.md C8), computed from history entries: the streak of
/// wake-ups ended by a scan, how long getting up takes (first ring to scan) per weekday, and
/// bypasses, overrides and missed alarms per week. A pure function of the entries and the zone,
/// so the client computes it from `history` pages and tests need no daemon.
public struct WakeStats: Hashable, Sendable, Codable {
  /// One weekday's figures.
  public struct WeekdayFigures: Hashable, Sendable, Codable {
    /// `mon` … `sun`.
    public var weekday: String
    /// Wake-ups ended by a scan of the puck on that weekday.
    public var scans: Int
    /// The median time from the first ring to the scan, in seconds; nil without a scan.
    public var medianSecondsToGetUp: Int?
  }

  /// One week's figures (weeks start on Monday, in the dock's zone).
  public struct WeekFigures: Hashable, Sendable, Codable {
    /// The week's Monday, `2026-03-02`.
    public var weekOf: LocalDate
    /// Wake-ups that rang (any ending).
    public var wakeUps: Int
    public var bypasses: Int
    public var overrides: Int
    public var missed: Int
  }

  /// Wake-ups ended by a scan, newest backwards, until one ended another way (an override, a
  /// missed alarm, or a wake-up the wake-up check opened again; an alarm that needs no puck
  /// neither counts nor breaks it).
  public var streak: Int
  /// The longest such run in the entries.
  public var longestStreak: Int
  /// How the wake-ups ended.
  public var scans: Int
  public var stopped: Int
  public var overrides: Int
  public var missed: Int
  /// Wake-up checks answered, and those that opened the wake-up again.
  public var awakeAnswered: Int
  public var reopened: Int
  /// Bypasses over all wake-ups.
  public var bypasses: Int
  /// Monday first.
  public var byWeekday: [WeekdayFigures]
  /// Oldest first; only weeks with an entry.
  public var byWeek: [WeekFigures]

  /// The figures of `entries` (oldest first, as history pages give them), dated in `zone`.
  public init(entries: [HistoryEntry], zone: ZoneRules) {
    var run = 0
    var longest = 0
    var counts: [HistoryEntry.Outcome: Int] = [:]
    var durations: [Weekday: [Int]] = [:]
    var weeks: [LocalDate: WeekFigures] = [:]
    for entry in entries {
      counts[entry.outcome, default: 0] += 1
      switch entry.outcome {
      case .woke, .upEarly:
        run += 1
        longest = max(longest, run)
      // Back to bed after the scan (the wake-up check opened it again) ends it too.
      case .overridden, .missed, .reopened: run = 0
      case .stopped, .awake: break
      }
      guard entry.outcome != .awake && entry.outcome != .reopened else { continue }
      let date = zone.localDateTime(at: entry.openedAt ?? entry.occurrence.scheduledAt).date
      if entry.outcome == .woke, let opened = entry.openedAt {
        durations[date.weekday, default: []].append(Int(max(0, entry.closedAt.seconds(since: opened))))
      }
      let monday = date.adding(days: 1 - date.weekday.rawValue)
      var week =
        weeks[monday] ?? WeekFigures(weekOf: monday, wakeUps: 0, bypasses: 0, overrides: 0, missed: 0)
      if entry.outcome == .missed {
        week.missed += 1
      } else {
        week.wakeUps += 1
        week.bypasses += entry.bypassCount
        if entry.outcome == .overridden { week.overrides += 1 }
      }
      weeks[monday] = week
    }
    streak = run
    longestStreak = longest
    scans = (counts[.woke] ?? 0) + (counts[.upEarly] ?? 0)
    stopped = counts[.stopped] ?? 0
    overrides = counts[.overridden] ?? 0
    missed = counts[.missed] ?? 0
    awakeAnswered = counts[.awake] ?? 0
    reopened = counts[.reopened] ?? 0
    bypasses = entries.reduce(0) { $0 + $1.bypassCount }
    byWeekday = Weekday.allCases.map { day in
      let seconds = durations[day] ?? []
      return WeekdayFigures(
        weekday: day.shortName, scans: seconds.count, medianSecondsToGetUp: Self.median(seconds))
    }
    byWeek = weeks.values.sorted { $0.weekOf < $1.weekOf }
  }

  /// The middle value (the mean of the two middle ones for an even count, rounded down).
  static func median(_ values: [Int]) -> Int? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }
}
