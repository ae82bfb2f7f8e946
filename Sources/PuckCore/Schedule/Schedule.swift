/// When alarms ring: the occurrences of a wall-clock time on weekdays or a date, in a zone.
///
/// Occurrences are found by walking local dates (never by adding 86 400 seconds, which drifts
/// an hour across DST changes) and resolving each date's wall-clock time with
/// `ZoneRules.instant(for:at:)` (RFC 5545: first of a repeated time, offset-before for a
/// skipped one). So every scheduled date rings exactly once: a time in the repeated hour rings
/// at its first occurrence, a time in a spring-forward gap rings just after the gap on the
/// same date. Two dates that resolve to the same instant (a skipped whole day, as in
/// Pacific/Apia on 2011-12-30) ring once, as the earlier date's occurrence.
public enum Schedule {
  /// The first time `alarm` rings strictly after `after`; nil if it is disabled, or a one-shot
  /// whose time is not after `after`. The occurrence on `alarm.skippedDate` does not ring.
  public static func nextFire(of alarm: Alarm, after: Instant, in zone: ZoneRules) -> Instant? {
    guard alarm.enabled else { return nil }
    var iterator = OccurrenceIterator(
      time: alarm.time, recurrence: alarm.recurrence, after: after, zone: zone, skipping: alarm.skippedDate,
      pausedBefore: alarm.pausedUntil)
    return iterator.next()?.instant
  }

  /// The next `count` instants strictly after `after` at which `time` on `recurrence` rings,
  /// leaving out the occurrence on `skipping`. Fewer for a one-shot (at most one).
  public static func fires(
    time: WallTime, recurrence: Recurrence, after: Instant, in zone: ZoneRules, count: Int,
    skipping: LocalDate? = nil
  ) -> [Instant] {
    var iterator = OccurrenceIterator(
      time: time, recurrence: recurrence, after: after, zone: zone, skipping: skipping)
    var instants: [Instant] = []
    while instants.count < count, let occurrence = iterator.next() {
      instants.append(occurrence.instant)
    }
    return instants
  }

  /// The occurrences of `alarm` in `(after, through]`, oldest first: what came due while the
  /// daemon was not looking (stopped, suspended, or the clock jumped). None for a disabled
  /// alarm; the occurrence on `alarm.skippedDate` is left out. At most `limit` when given (the
  /// oldest), so years of downtime can be walked in slices.
  public static func occurrences(
    of alarm: Alarm, after: Instant, through: Instant, in zone: ZoneRules, limit: Int? = nil
  ) -> [Occurrence] {
    guard alarm.enabled else { return [] }
    var iterator = OccurrenceIterator(
      time: alarm.time, recurrence: alarm.recurrence, after: after, zone: zone, skipping: alarm.skippedDate,
      pausedBefore: alarm.pausedUntil)
    var found: [Occurrence] = []
    while found.count < limit ?? .max, let occurrence = iterator.next(), occurrence.instant <= through {
      found.append(occurrence)
    }
    return found
  }
}

/// Yields the occurrences of a time on a recurrence strictly after an instant, in order, each
/// instant later than the one before.
struct OccurrenceIterator: IteratorProtocol {
  let time: WallTime
  let recurrence: Recurrence
  let zone: ZoneRules
  let skipping: LocalDate?
  /// Dates before this one are paused.
  let pausedBefore: LocalDate?
  /// The next local date to try.
  private var date: LocalDate
  /// Occurrences must come strictly after this.
  private var latest: Instant
  private var finished = false

  init(
    time: WallTime, recurrence: Recurrence, after: Instant, zone: ZoneRules, skipping: LocalDate?,
    pausedBefore: LocalDate? = nil
  ) {
    // Start two days early: a date's occurrence can land up to a day later than its wall-clock
    // time (a skipped whole day), and must still be found.
    date = zone.localDateTime(at: after).date.adding(days: -2)
    latest = after
    self.time = time
    self.recurrence = recurrence
    self.zone = zone
    self.skipping = skipping
    self.pausedBefore = pausedBefore
  }

  private func isPaused(_ date: LocalDate) -> Bool {
    pausedBefore.map { date < $0 } ?? false
  }

  mutating func next() -> Occurrence? {
    guard !finished else { return nil }
    switch recurrence {
    case .once(let onceDate):
      finished = true
      guard onceDate != skipping, !isPaused(onceDate) else { return nil }
      let instant = zone.instant(for: onceDate, at: time)
      return instant > latest ? Occurrence(date: onceDate, instant: instant) : nil
    case .weekly(let days):
      guard !days.isEmpty else {
        finished = true
        return nil
      }
      while true {
        // A pause is passed over in one step, not a day at a time: an alarms.json paused until
        // 9999 costs what any other does.
        if let resume = pausedBefore, date < resume { date = resume }
        let candidate = date
        date = date.adding(days: 1)
        guard days.contains(candidate.weekday), candidate != skipping else { continue }
        let instant = zone.instant(for: candidate, at: time)
        // `<=` also drops a date that resolves onto an instant already returned.
        guard instant > latest else { continue }
        latest = instant
        return Occurrence(date: candidate, instant: instant)
      }
    }
  }
}
