/// How far each alarm's occurrences have been handled (rung, or recorded as missed), and so the
/// one answer to "when does this alarm ring next" for the timer, status, `alarm list`, `alarm
/// add` and `skip`.
///
/// Most alarms share one handled point, `scheduledThrough`. After the wall clock stepped back,
/// that point lies ahead of the clock, and an alarm created (or enabled) in the re-lived window
/// has not been handled there at all: it gets its own, earlier point, so its occurrences in the
/// window ring. Alarms that already rang keep the shared point and do not ring twice.
public struct ScheduleProgress: Hashable, Sendable {
  /// How far behind the handled point the clock may be and still be trusted without NTP: an
  /// hour (a board without an RTC booting with an old saved time is usually much further off).
  public static let trustedStepBack: Int64 = 3600

  /// Every occurrence up to here of an alarm without its own point has been handled.
  public var scheduledThrough: Instant?
  /// Alarms behind `scheduledThrough` (created or enabled after a backward step), by ID. Never
  /// ahead of `scheduledThrough`: a point that catches up with it is dropped.
  public var handledThrough: [AlarmID: Instant]

  /// Progress from its parts.
  public init(scheduledThrough: Instant? = nil, handledThrough: [AlarmID: Instant] = [:]) {
    self.scheduledThrough = scheduledThrough
    self.handledThrough = handledThrough
  }

  /// The instant through which alarm `id`'s occurrences have been handled; nil before the
  /// daemon first looked.
  public func handledPoint(of id: AlarmID) -> Instant? {
    handledThrough[id] ?? scheduledThrough
  }

  /// The next time `alarm` rings: its first occurrence after both its handled point and `now`.
  /// An occurrence between the handled point and `now` is overdue: `catchUp` deals with it.
  public func nextFire(of alarm: Alarm, now: Instant, in zone: ZoneRules) -> Instant? {
    Schedule.nextFire(of: alarm, after: max(handledPoint(of: alarm.id) ?? now, now), in: zone)
  }

  /// The alarm that rings first among `alarms`, and when.
  public func nextAlarm(among alarms: [Alarm], now: Instant, in zone: ZoneRules) -> (
    alarm: Alarm, at: Instant
  )? {
    var best: (alarm: Alarm, at: Instant)?
    for alarm in alarms {
      guard let fire = nextFire(of: alarm, now: now, in: zone) else { continue }
      if best.map({ fire < $0.at }) ?? true { best = (alarm, fire) }
    }
    return best
  }

  /// A new or just enabled alarm counts from `now`: behind the shared point (the clock stepped
  /// back) it gets its own point, so what falls in the re-lived window rings. Returns whether
  /// anything changed.
  @discardableResult
  public mutating func startCounting(_ id: AlarmID, at now: Instant) -> Bool {
    let point = scheduledThrough.map { now < $0 } ?? false ? now : nil
    guard handledThrough[id] != point else { return false }
    handledThrough[id] = point
    return true
  }

  /// What `catchUp` found: what to ring now, what to record as missed, and what to tell.
  public struct CatchUp: Hashable, Sendable {
    /// The newest overdue occurrence of each alarm, when it is within the grace: ring these
    /// before anything else.
    public var ring: [Occurrence.OfAlarm]
    /// The older overdue occurrences, as ranges to record in slices (`MissedBacklog`).
    public var missed: [MissedRange]
    /// The clock is more than `trustedStepBack` behind the shared point and not synchronised:
    /// alarms on that point wait for the clock to be set.
    public var waitingForClock: Bool
    /// The synchronised clock was more than `trustedStepBack` behind the shared point, which
    /// was therefore bogus (saved under a wrong clock): everything now counts from `now`.
    public var rescheduled: Bool
  }

  /// Moves every alarm's handled point to `now` and returns what fell due on the way, without
  /// enumerating the missed occurrences (years of downtime are thousands of them; they are
  /// recorded later, in slices). `clockSynchronized` is what the kernel says (nil: unknown).
  public mutating func catchUp(
    _ alarms: [Alarm], now: Instant, policy: MissedAlarmPolicy, clockSynchronized: Bool?, in zone: ZoneRules
  ) -> CatchUp {
    var result = CatchUp(ring: [], missed: [], waitingForClock: false, rescheduled: false)
    let shared = scheduledThrough ?? now
    if shared.seconds(since: now) > Self.trustedStepBack {
      // Usually a board without an RTC booted with an old saved time and NTP will step it
      // forward: keep the handled point, so nothing already rung rings again. Only a
      // synchronised clock is trusted to say the handled point itself was wrong.
      if clockSynchronized == true {
        scheduledThrough = now
        handledThrough = [:]
        result.rescheduled = true
      } else {
        result.waitingForClock = true
      }
    }
    let start = scheduledThrough ?? now
    let grace = policy.grace.components.seconds
    for alarm in alarms {
      let handled = handledThrough[alarm.id] ?? start
      guard handled < now else { continue }
      if alarm.enabled {
        // Only the last grace period can hold an occurrence to ring: look there, not at years.
        let recent = Schedule.occurrences(
          of: alarm, after: max(handled, now.adding(seconds: -grace - 1)), through: now, in: zone)
        var missedThrough = now
        if let latest = recent.last, policy.decide(scheduled: latest.instant, now: now) == .ringNow {
          result.ring.append(Occurrence.OfAlarm(alarm: alarm, occurrence: latest))
          missedThrough = latest.instant.adding(seconds: -1)
        }
        // One step of the walk tells whether there is anything to record at all.
        if handled < missedThrough,
          !Schedule.occurrences(of: alarm, after: handled, through: missedThrough, in: zone, limit: 1).isEmpty
        {
          result.missed.append(MissedRange(alarm: alarm, after: handled, through: missedThrough))
        }
      }
      handledThrough[alarm.id] = now
    }
    scheduledThrough = max(start, now)
    // A point that reached the shared one is the shared one; a removed alarm needs none.
    let ids = Set(alarms.map(\.id))
    handledThrough = handledThrough.filter { id, point in ids.contains(id) && point < max(start, now) }
    return result
  }
}

/// The occurrences of one alarm in `(after, through]` still to be recorded as missed. The alarm
/// is a copy taken when they fell due, so removing or changing it later changes nothing here.
public struct MissedRange: Hashable, Sendable, Codable {
  /// The alarm as it was when its occurrences were missed.
  public var alarm: Alarm
  /// Occurrences up to here are recorded.
  public var after: Instant
  /// The last instant of the range.
  public var through: Instant
}

/// Missed occurrences not yet in history, saved with the handled points in `guards.json`, so a
/// daemon killed while recording them carries on where it stopped instead of starting over.
public struct MissedBacklog: Hashable, Sendable {
  /// The ranges, in the order they were found.
  public var ranges: [MissedRange]

  /// A backlog of these ranges.
  public init(ranges: [MissedRange] = []) {
    self.ranges = ranges
  }

  /// Whether nothing is left to record.
  public var isEmpty: Bool { ranges.isEmpty }

  /// Takes the oldest `limit` occurrences across every range, oldest first, and moves the
  /// ranges past them. Each call costs O(ranges × limit) whatever the length of the downtime.
  public mutating func take(_ limit: Int, in zone: ZoneRules) -> [AlarmOccurrence] {
    var candidates: [(range: Int, occurrence: Occurrence)] = []
    var exhausted: Set<Int> = []
    for (index, range) in ranges.enumerated() {
      var enabled = range.alarm
      enabled.enabled = true
      let found = Schedule.occurrences(
        of: enabled, after: range.after, through: range.through, in: zone, limit: limit)
      if found.count < limit { exhausted.insert(index) }
      candidates += found.map { (index, $0) }
    }
    // Oldest first; equal instants keep the ranges' order, so the order is the same every time.
    let taken = candidates.enumerated().sorted { lhs, rhs in
      (lhs.element.occurrence.instant, lhs.offset) < (rhs.element.occurrence.instant, rhs.offset)
    }.prefix(limit).map(\.element)
    let occurrences = taken.map {
      AlarmOccurrence(alarm: ranges[$0.range].alarm, scheduledAt: $0.occurrence.instant)
    }
    var left = Dictionary(grouping: candidates, by: \.range).mapValues(\.count)
    for (range, occurrence) in taken {
      ranges[range].after = max(ranges[range].after, occurrence.instant)
      left[range, default: 0] -= 1
    }
    // A range is done when it had fewer than `limit` left and every one of them was taken.
    ranges = ranges.enumerated().compactMap { index, range in
      let done = exhausted.contains(index) && left[index, default: 0] == 0
      return done || range.after >= range.through ? nil : range
    }
    return occurrences
  }
}

extension Occurrence {
  /// An occurrence with the alarm it belongs to.
  public struct OfAlarm: Hashable, Sendable {
    public var alarm: Alarm
    public var occurrence: Occurrence
  }
}
