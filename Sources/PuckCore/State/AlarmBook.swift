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

  public init(
    guards: [WakeGuard] = [], scheduledThrough: Instant? = nil, unacknowledgedMissed: [AlarmOccurrence] = []
  ) {
    self.guards = guards
    self.scheduledThrough = scheduledThrough
    self.unacknowledgedMissed = unacknowledgedMissed
  }
}

extension HistoryEntry: VersionedPayload {
  public static let schemaVersion = 1
}
