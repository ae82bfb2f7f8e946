/// Whether an alarm that came due while the daemon was not looking still rings.
///
/// An alarm rings if it is at most `grace` late (default 30 minutes): a laptop resumed at
/// 06:40 still wakes its owner for 06:30. Later than that it is recorded as missed, so that
/// nobody is woken at noon by the morning alarm.
public struct MissedAlarmPolicy: Hashable, Sendable {
  /// How late an alarm may be and still ring.
  public var grace: Duration

  /// A policy with `grace` (30 minutes unless given).
  public init(grace: Duration = .seconds(30 * 60)) {
    self.grace = grace
  }

  /// What to do about an occurrence scheduled at `scheduled`, at `now`.
  public enum Decision: Hashable, Sendable {
    /// Its time has not come.
    case notYetDue
    /// It is due and at most `grace` late: ring.
    case ringNow
    /// It is more than `grace` late: record it as missed.
    case missed
  }

  /// The occurrences found after a gap in the daemon's attention, sorted into the one to ring
  /// and the ones to record as missed.
  public struct CatchUp: Hashable, Sendable {
    /// The most recent occurrence, if it is at most `grace` late.
    public var ring: Occurrence?
    /// Older occurrences, and the most recent one if it is too late; oldest first.
    public var missed: [Occurrence]

    /// A catch-up from its parts.
    public init(ring: Occurrence?, missed: [Occurrence]) {
      self.ring = ring
      self.missed = missed
    }
  }

  /// Whether `scheduled` rings at `now`: exactly `grace` late still rings, a second more is
  /// missed.
  public func decide(scheduled: Instant, now: Instant) -> Decision {
    let lateness = now.seconds(since: scheduled)
    if lateness < 0 { return .notYetDue }
    return lateness <= grace.components.seconds ? .ringNow : .missed
  }

  /// Sorts the occurrences of `alarm` in `(lastEvaluated, now]` — `lastEvaluated` being the
  /// last instant the daemon is known to have checked its alarms — into at most one to ring
  /// (the most recent, if within grace) and the rest, missed.
  public func catchUp(
    _ alarm: Alarm, lastEvaluated: Instant, now: Instant, in zone: ZoneRules
  ) -> CatchUp {
    var missed = Schedule.occurrences(of: alarm, after: lastEvaluated, through: now, in: zone)
    guard let latest = missed.last, decide(scheduled: latest.instant, now: now) == .ringNow else {
      return CatchUp(ring: nil, missed: missed)
    }
    missed.removeLast()
    return CatchUp(ring: latest, missed: missed)
  }
}
