/// The hour before (docs/DESIGN.md S12): inside `[enforcement] lock_before` of an occurrence,
/// nothing that would remove or delay it is accepted from anyone, root included. A phone in bed
/// at 05:59 must not cancel the 06:00 alarm; a scan of the puck ends it instead (the one way to
/// say "I am already up"), and `override` stays root's costly escape.
///
/// The rule is judged on what a change does, not on which command asks for it: a change from
/// one alarm book to another is refused when an occurrence locked before it no longer rings at
/// its time or earlier, or no longer needs the puck. So adding alarms and making one earlier
/// pass, and every way of removing or delaying one (rm, disable, skip, a later time, other days,
/// `--no-puck`, an alarm's pause, the dock's pause) is caught by the same check. An alarm
/// added or changed in the last `correctionTime` may still be corrected (a typo is not a cheat),
/// but only back to what was locked before its first change: moving the 06:00 alarm to 05:50 and
/// then to 07:00 is still refused.
///
/// Pure: the time, the zone and the schedule's handled points are parameters.
public struct AlarmLock: Hashable, Sendable {
  /// How long before an occurrence it is locked; zero turns the lock off.
  public var lockBefore: Duration
  /// Changes accepted within the last `correctionTime`, by alarm.
  public private(set) var corrections: [AlarmID: Correction] = [:]

  /// How long after adding or changing an alarm it may still be corrected.
  public static let correctionTime: Duration = .seconds(120)
  /// How long before an occurrence a scan of the puck may end it early, whatever `lockBefore`:
  /// with a lock of 8 h, a scan at bedtime must not cancel the morning's alarm.
  public static let earlyScanLimit: Duration = .seconds(3600)

  /// An alarm changed at `since`, and what was locked of it before that first change (nil:
  /// nothing, as for an alarm just added).
  public struct Correction: Hashable, Sendable {
    public var since: Instant
    public var baseline: AlarmOccurrence?
  }

  public init(lockBefore: Duration) {
    self.lockBefore = lockBefore
  }

  /// The occurrences of the alarms of `book` (as scheduled: the dock's pause applied) that ring
  /// in `(now, now + lockBefore]`, each alarm's next one, soonest first. `early`: only those a
  /// scan may end now, within `earlyScanLimit` as well.
  public func locked(
    in book: AlarmBook, progress: ScheduleProgress, now: Instant, zone: ZoneRules, early: Bool = false
  ) -> [AlarmOccurrence] {
    guard lockBefore > .zero else { return [] }
    let end = now.adding(early ? min(lockBefore, Self.earlyScanLimit) : lockBefore)
    return book.scheduled.compactMap { alarm in
      guard let next = progress.nextFire(of: alarm, now: now, in: zone), next <= end else { return nil }
      return AlarmOccurrence(alarm: alarm, scheduledAt: next)
    }.sorted { ($0.scheduledAt, $0.alarmID) < ($1.scheduledAt, $1.alarmID) }
  }

  /// What the change from `before` to `after` would remove or delay: the first occurrence it
  /// must keep that would no longer ring at its time or earlier with the puck it needed; nil
  /// when the change keeps every one. What it must keep: the locked occurrences of `before`,
  /// save that an alarm changed within `correctionTime` keeps only what was locked before its
  /// first change.
  public func refusal(
    from before: AlarmBook, to after: AlarmBook, progress: ScheduleProgress, now: Instant, zone: ZoneRules
  ) -> AlarmOccurrence? {
    let current = locked(in: before, progress: progress, now: now, zone: zone)
    var kept = current.filter { correction(of: $0.alarmID, at: now) == nil }
    kept += corrections.keys.sorted().compactMap { id in correction(of: id, at: now)?.baseline }
    let scheduled = after.scheduled
    return kept.first { occurrence in
      guard let alarm = scheduled.first(where: { $0.id == occurrence.alarmID }),
        let next = progress.nextFire(of: alarm, now: now, in: zone)
      else { return true }
      return next > occurrence.scheduledAt || (occurrence.requiresPuck && !alarm.requiresPuck)
    }
  }

  /// Notes an accepted change from `before` to `after` at `now`: each alarm it added or changed
  /// may be corrected for `correctionTime`, back to what was locked before its first change.
  public mutating func accepted(
    from before: AlarmBook, to after: AlarmBook, progress: ScheduleProgress, now: Instant, zone: ZoneRules
  ) {
    corrections = corrections.filter { $0.value.since.adding(Self.correctionTime) > now }
    let lockedBefore = locked(in: before, progress: progress, now: now, zone: zone)
    for alarm in after.alarms where before.alarms.first(where: { $0.id == alarm.id }) != alarm {
      guard corrections[alarm.id] == nil else { continue }
      corrections[alarm.id] = Correction(
        since: now, baseline: lockedBefore.first { $0.alarmID == alarm.id })
    }
  }

  /// The correction alarm `id` may still have at `now`.
  private func correction(of id: AlarmID, at now: Instant) -> Correction? {
    corrections[id].flatMap { $0.since.adding(Self.correctionTime) > now ? $0 : nil }
  }
}
