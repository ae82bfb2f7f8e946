/// One firing of an alarm: the identity a ring carries through every retry, so that status and
/// logs say "06:30 alarm, retry 3" and not the retry's own time (docs/DESIGN.md W3).
public struct AlarmOccurrence: Hashable, Sendable, Codable {
  /// The alarm that fired.
  public var alarmID: AlarmID
  /// The alarm's label at the time it fired.
  public var label: String
  /// The wall-clock time the alarm was set for.
  public var time: WallTime
  /// The instant this occurrence was scheduled for.
  public var scheduledAt: Instant
  /// Whether only the paired tag may close its wake-up.
  public var requiresPuck: Bool
  /// Whether the alarm is a one-shot, retired once its wake-up is resolved.
  public var isOneShot: Bool

  /// `06:30 alarm` or `06:30 "work" alarm`.
  public var displayName: String {
    label.isEmpty ? "\(time) alarm" : "\(time) \"\(label)\" alarm"
  }

  private enum CodingKeys: String, CodingKey {
    case alarmID, label, time, scheduledAt, requiresPuck, isOneShot
  }
}

// The initialisers stand in an extension so that Swift still gives the module the memberwise one.
extension AlarmOccurrence {
  /// The occurrence of `alarm` scheduled for `instant`.
  public init(alarm: Alarm, scheduledAt instant: Instant) {
    self.init(
      alarmID: alarm.id, label: alarm.label, time: alarm.time, scheduledAt: instant,
      requiresPuck: alarm.requiresPuck, isOneShot: alarm.isOneShot)
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    alarmID = try container.decode(AlarmID.self, forKey: .alarmID)
    // History and guards written before the label limits may hold a label of any size; cut it
    // so that a page of history stays bounded (Alarm.fittingLabel).
    label = Alarm.fittingLabel(try container.decode(String.self, forKey: .label))
    time = try container.decode(WallTime.self, forKey: .time)
    scheduledAt = try container.decode(Instant.self, forKey: .scheduledAt)
    requiresPuck = try container.decode(Bool.self, forKey: .requiresPuck)
    isOneShot = try container.decode(Bool.self, forKey: .isOneShot)
  }
}
