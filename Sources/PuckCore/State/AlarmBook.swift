/// `alarms.json`: every alarm and the next free ID.
public struct AlarmBook: VersionedPayload, Hashable {
  public static let schemaVersion = 1
  /// The most alarms `alarm add` accepts. Every alarm is in each `alarm list` reply and each
  /// schedule computation, so their number is bounded; a book already holding more (written by
  /// hand) keeps them all and refuses additions until enough are removed.
  public static let maximumAlarms = 100

  public var alarms: [Alarm]
  /// IDs are never reused, so an old `puckctl alarm rm 3` cannot hit a newer alarm.
  public var nextID: AlarmID
  /// The whole dock paused: no alarm rings on a local date before this one (`puckctl pause
  /// --until DATE`, holidays). Optional on disk, so the file stays version 1.
  public var pausedUntil: LocalDate?

  /// How far ahead a pause may end, in days: a year of holidays. A date further off is more
  /// likely a typo (`2062` for `2026`) than a plan; an alarm not wanted for longer is disabled.
  public static let longestPause = 366

  public init(alarms: [Alarm] = [], nextID: AlarmID = 1, pausedUntil: LocalDate? = nil) {
    self.alarms = alarms
    self.nextID = nextID
    self.pausedUntil = pausedUntil
  }

  /// The alarms as the schedule sees them: each paused until the later of its own pause and the
  /// dock's.
  public var scheduled: [Alarm] {
    guard let dock = pausedUntil else { return alarms }
    return alarms.map { alarm in
      var paused = alarm
      paused.pausedUntil = max(alarm.pausedUntil ?? dock, dock)
      return paused
    }
  }

  /// Whether the book holds `maximumAlarms` or more, so `alarm add` is refused.
  public var isFull: Bool { alarms.count >= Self.maximumAlarms }

  /// Adds an alarm from a draft, its relative dates resolved at `now` in `zone`, and returns it.
  public mutating func add(_ draft: AlarmDraft, now: Instant, in zone: ZoneRules) -> Alarm {
    let alarm = Alarm(
      id: nextID, time: draft.time,
      recurrence: draft.recurrence.resolved(time: draft.time, now: now, in: zone),
      label: draft.label,
      requiresPuck: draft.requiresPuck)
    alarms.append(alarm)
    nextID += 1
    return alarm
  }

  /// The index of alarm `id`.
  public func index(of id: AlarmID) -> Int? {
    alarms.firstIndex { $0.id == id }
  }
}

/// `guards.json`: the open wake guards, and how far the schedule has been handled.
///
/// Fields added after version 1 (`handledThrough`, `missedBacklog`, `olderUnacknowledgedMissed`)
/// are optional on disk and left out when empty, so the file stays version 1: an older puckd
/// reads it and ignores them.
public struct EnforcementRecord: VersionedPayload, Hashable {
  public static let schemaVersion = 1
  /// How many missed occurrences are kept to show in status; older ones are only counted.
  public static let missedShown = 10

  /// The open guards, oldest first.
  public var guards: [WakeGuard]
  /// Every alarm occurrence up to this instant has been rung or recorded as missed; on start,
  /// occurrences after it are late (rung within the grace) or missed.
  public var scheduledThrough: Instant?
  /// Alarms handled only up to an earlier instant than `scheduledThrough` (see
  /// `ScheduleProgress`).
  public var handledThrough: [AlarmID: Instant]
  /// Missed occurrences found but not yet in history.
  public var missedBacklog: MissedBacklog
  /// The newest missed alarms status shows until acknowledged, oldest first; at most
  /// `missedShown`.
  public private(set) var unacknowledgedMissed: [AlarmOccurrence]
  /// Missed alarms since the last acknowledge beyond those in `unacknowledgedMissed`.
  public private(set) var olderUnacknowledgedMissed: Int
  /// History entries of closed guards not yet known to be in history
  /// (`WakeGuardMachine.pendingHistory`); absent in files written before it existed.
  public var pendingHistory: [HistoryEntry]
  /// When overrides closed wake-ups without a scan, since the last acknowledge, oldest first; at
  /// most `missedShown` (status shows them until acknowledged).
  public private(set) var unacknowledgedOverrides: [Instant] = []
  /// The wake-up check waiting after a scan ended a wake-up; nil when none is (docs/DESIGN.md
  /// W16). Optional on disk, like the fields above.
  public var awakeCheck: AwakeCheckState?

  public init(
    guards: [WakeGuard] = [], scheduledThrough: Instant? = nil, unacknowledgedMissed: [AlarmOccurrence] = [],
    pendingHistory: [HistoryEntry] = []
  ) {
    self.guards = guards
    self.scheduledThrough = scheduledThrough
    self.handledThrough = [:]
    self.missedBacklog = MissedBacklog()
    self.unacknowledgedMissed = []
    self.olderUnacknowledgedMissed = 0
    self.pendingHistory = pendingHistory
    noteMissed(unacknowledgedMissed)
  }

  /// The handled points, as the schedule reads and moves them.
  public var progress: ScheduleProgress {
    get { ScheduleProgress(scheduledThrough: scheduledThrough, handledThrough: handledThrough) }
    set {
      scheduledThrough = newValue.scheduledThrough
      handledThrough = newValue.handledThrough
    }
  }

  /// Every missed alarm since the last acknowledge.
  public var unacknowledgedMissedCount: Int { olderUnacknowledgedMissed + unacknowledgedMissed.count }

  /// Adds missed alarms (oldest first) for status, keeping the newest `missedShown` and counting
  /// the rest: years of downtime must not make every status reply and save grow.
  public mutating func noteMissed(_ occurrences: [AlarmOccurrence]) {
    unacknowledgedMissed += occurrences
    let excess = unacknowledgedMissed.count - Self.missedShown
    if excess > 0 {
      unacknowledgedMissed.removeFirst(excess)
      olderUnacknowledgedMissed += excess
    }
  }

  /// Takes in what another copy of this record knows about missed alarms: `guards.json` read
  /// again after an error, while this run worked from its last good copy or from nothing. One
  /// copy is an earlier state of the other, so the larger count of older alarms already counts
  /// every alarm shown by either copy before its own shown list starts; the shown list becomes
  /// the union past that point, oldest first, capped as `noteMissed` caps. Backlog ranges this
  /// copy lacks are added (an overlap only costs a second look at the end of history, which
  /// drops entries already written).
  public mutating func mergeMissed(from other: EnforcementRecord) {
    let wider = other.olderUnacknowledgedMissed > olderUnacknowledgedMissed ? other : self
    let boundary = wider.olderUnacknowledgedMissed > 0 ? wider.unacknowledgedMissed.first?.scheduledAt : nil
    let union = Set(unacknowledgedMissed).union(other.unacknowledgedMissed).filter { occurrence in
      boundary.map { occurrence.scheduledAt >= $0 } ?? true
    }
    unacknowledgedMissed = []
    olderUnacknowledgedMissed = wider.olderUnacknowledgedMissed
    noteMissed(union.sorted { ($0.scheduledAt, $0.alarmID) < ($1.scheduledAt, $1.alarmID) })
    missedBacklog.ranges += other.missedBacklog.ranges.filter { !missedBacklog.ranges.contains($0) }
  }

  /// The owner has seen the missed alarms and the overrides (`puckctl acknowledge`).
  public mutating func acknowledgeMissed() {
    unacknowledgedMissed = []
    olderUnacknowledgedMissed = 0
    unacknowledgedOverrides = []
  }

  /// An override closed wake-ups at `instant`.
  public mutating func noteOverride(at instant: Instant) {
    unacknowledgedOverrides.append(instant)
    if unacknowledgedOverrides.count > Self.missedShown { unacknowledgedOverrides.removeFirst() }
  }

  private enum CodingKeys: String, CodingKey {
    case guards, scheduledThrough, handledThrough, missedBacklog, unacknowledgedMissed,
      olderUnacknowledgedMissed, pendingHistory, unacknowledgedOverrides, awakeCheck
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    guards = try container.decode([WakeGuard].self, forKey: .guards)
    scheduledThrough = try container.decodeIfPresent(Instant.self, forKey: .scheduledThrough)
    handledThrough = try container.decodeIfPresent([AlarmID: Instant].self, forKey: .handledThrough) ?? [:]
    missedBacklog = MissedBacklog(
      ranges: try container.decodeIfPresent([MissedRange].self, forKey: .missedBacklog) ?? [])
    unacknowledgedMissed = []
    olderUnacknowledgedMissed =
      try container.decodeIfPresent(Int.self, forKey: .olderUnacknowledgedMissed) ?? 0
    // An optional addition, so schema version 1 still describes the file: an older puckd
    // ignores the key (and, journaling nothing, loses nothing it knew about).
    pendingHistory = try container.decodeIfPresent([HistoryEntry].self, forKey: .pendingHistory) ?? []
    unacknowledgedOverrides =
      try container.decodeIfPresent([Instant].self, forKey: .unacknowledgedOverrides) ?? []
    awakeCheck = try container.decodeIfPresent(AwakeCheckState.self, forKey: .awakeCheck)
    // A file from before the cap can hold thousands: keep the newest, count the rest.
    noteMissed(try container.decode([AlarmOccurrence].self, forKey: .unacknowledgedMissed))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(guards, forKey: .guards)
    try container.encodeIfPresent(scheduledThrough, forKey: .scheduledThrough)
    if !handledThrough.isEmpty { try container.encode(handledThrough, forKey: .handledThrough) }
    if !missedBacklog.isEmpty { try container.encode(missedBacklog.ranges, forKey: .missedBacklog) }
    if !unacknowledgedOverrides.isEmpty {
      try container.encode(unacknowledgedOverrides, forKey: .unacknowledgedOverrides)
    }
    try container.encode(unacknowledgedMissed, forKey: .unacknowledgedMissed)
    if olderUnacknowledgedMissed > 0 {
      try container.encode(olderUnacknowledgedMissed, forKey: .olderUnacknowledgedMissed)
    }
    if !pendingHistory.isEmpty { try container.encode(pendingHistory, forKey: .pendingHistory) }
    try container.encodeIfPresent(awakeCheck, forKey: .awakeCheck)
  }
}

/// A wake-up check waiting (docs/DESIGN.md W17): the occurrence a scan ended, when the dock
/// asks, and once it has asked, until when it waits for the answer.
public struct AwakeCheckState: Hashable, Sendable, Codable {
  /// The wake-up that ended; it opens again without an answer.
  public var occurrence: AlarmOccurrence
  /// When the dock asks.
  public var askAt: Instant
  /// Set when it asked: the answer must come before this.
  public var answerBy: Instant?

  public init(occurrence: AlarmOccurrence, askAt: Instant, answerBy: Instant? = nil) {
    self.occurrence = occurrence
    self.askAt = askAt
    self.answerBy = answerBy
  }
}

extension HistoryEntry: VersionedPayload {
  public static let schemaVersion = 1
}
