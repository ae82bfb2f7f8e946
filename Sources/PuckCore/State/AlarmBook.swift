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

  public init(alarms: [Alarm] = [], nextID: AlarmID = 1) {
    self.alarms = alarms
    self.nextID = nextID
  }

  /// Whether the book holds `maximumAlarms` or more, so `alarm add` is refused.
  public var isFull: Bool { alarms.count >= Self.maximumAlarms }

  /// Adds an alarm from a draft and returns it.
  public mutating func add(_ draft: AlarmDraft) -> Alarm {
    let alarm = Alarm(
      id: nextID, time: draft.time, recurrence: draft.recurrence, label: draft.label,
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
public struct EnforcementRecord: VersionedPayload, Hashable {
  public static let schemaVersion = 1

  /// The open guards, oldest first.
  public var guards: [WakeGuard]
  /// Every alarm occurrence up to this instant has been rung or recorded as missed; on start,
  /// occurrences after it are late (rung within the grace) or missed.
  public var scheduledThrough: Instant?
  /// Missed alarms status shows until acknowledged.
  public var unacknowledgedMissed: [AlarmOccurrence]
  /// History entries of closed guards not yet known to be in history
  /// (`WakeGuardMachine.pendingHistory`); absent in files written before it existed.
  public var pendingHistory: [HistoryEntry]

  public init(
    guards: [WakeGuard] = [], scheduledThrough: Instant? = nil, unacknowledgedMissed: [AlarmOccurrence] = [],
    pendingHistory: [HistoryEntry] = []
  ) {
    self.guards = guards
    self.scheduledThrough = scheduledThrough
    self.unacknowledgedMissed = unacknowledgedMissed
    self.pendingHistory = pendingHistory
  }

  private enum CodingKeys: String, CodingKey {
    case guards, scheduledThrough, unacknowledgedMissed, pendingHistory
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    guards = try container.decode([WakeGuard].self, forKey: .guards)
    scheduledThrough = try container.decodeIfPresent(Instant.self, forKey: .scheduledThrough)
    unacknowledgedMissed = try container.decode([AlarmOccurrence].self, forKey: .unacknowledgedMissed)
    // An optional addition, so schema version 1 still describes the file: an older puckd
    // ignores the key (and, journaling nothing, loses nothing it knew about).
    pendingHistory = try container.decodeIfPresent([HistoryEntry].self, forKey: .pendingHistory) ?? []
  }
}

extension HistoryEntry: VersionedPayload {
  public static let schemaVersion = 1
}
