/// An alarm's identity: a small number a person can type (`puckctl alarm rm 3`).
public typealias AlarmID = Int

/// How an alarm repeats: on a set of weekdays, or once on a date.
public enum Recurrence: Hashable, Sendable {
  /// Every week on these days (never empty).
  case weekly(Set<Weekday>)
  /// Once, on this local date; retired when its wake-up is resolved.
  case once(LocalDate)

  /// `Mon,Tue,Fri`, `daily`, `weekdays`, `weekends` or `once 2026-03-30`.
  public var summary: String {
    switch self {
    case .once(let date): return "once \(date)"
    case .weekly(let days):
      if days.count == 7 { return "daily" }
      if days == [.monday, .tuesday, .wednesday, .thursday, .friday] { return "weekdays" }
      if days == [.saturday, .sunday] { return "weekends" }
      return days.sorted().map(\.description).joined(separator: ",")
    }
  }
}

/// An alarm as docs/DESIGN.md S1 describes it: a wall-clock time plus weekdays or a date.
public struct Alarm: Hashable, Sendable, Codable, Identifiable {
  public var id: AlarmID
  /// The local wall-clock time it rings at.
  public var time: WallTime
  /// Weekly or one-shot.
  public var recurrence: Recurrence
  /// A person's name for it ("work", "gym"); may be empty.
  public var label: String
  /// A disabled alarm never fires.
  public var enabled: Bool
  /// Whether only a scan of the paired tag ends its wake-up (default). Without it the alarm
  /// just rings until stopped.
  public var requiresPuck: Bool
  /// The local date of an occurrence the owner chose to skip (`puckctl alarm skip`).
  public var skippedDate: LocalDate?
  /// Paused: no occurrence rings on a local date before this one (`puckctl alarm pause ID
  /// --until DATE`; DATE is the first day it rings again). Past dates mean nothing.
  public var pausedUntil: LocalDate?

  public init(
    id: AlarmID, time: WallTime, recurrence: Recurrence, label: String = "",
    enabled: Bool = true, requiresPuck: Bool = true, skippedDate: LocalDate? = nil
  ) {
    self.id = id
    self.time = time
    self.recurrence = recurrence
    self.label = label
    self.enabled = enabled
    self.requiresPuck = requiresPuck
    self.skippedDate = skippedDate
  }

  /// Whether this alarm fires only once.
  public var isOneShot: Bool {
    if case .once = recurrence { return true }
    return false
  }

  /// `06:30 alarm` or `06:30 "work" alarm`: how status and logs name it.
  public var displayName: String {
    label.isEmpty ? "\(time) alarm" : "\(time) \"\(label)\" alarm"
  }

  private enum CodingKeys: String, CodingKey {
    case id, time, days, date, label, enabled, requiresPuck, skippedDate, pausedUntil
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(AlarmID.self, forKey: .id)
    time = try container.decode(WallTime.self, forKey: .time)
    // Tolerated, not refused: an alarms.json from before the label limits (or edited by hand)
    // keeps every alarm ringing, with an over-long label cut to fit.
    label = Alarm.fittingLabel(try container.decodeIfPresent(String.self, forKey: .label) ?? "")
    enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
    requiresPuck = try container.decodeIfPresent(Bool.self, forKey: .requiresPuck) ?? true
    skippedDate = try container.decodeIfPresent(LocalDate.self, forKey: .skippedDate)
    pausedUntil = try container.decodeIfPresent(LocalDate.self, forKey: .pausedUntil)
    let days = try container.decodeIfPresent([Weekday].self, forKey: .days)
    let date = try container.decodeIfPresent(LocalDate.self, forKey: .date)
    switch (days, date) {
    case (let days?, nil) where !days.isEmpty: recurrence = .weekly(Set(days))
    case (nil, let date?): recurrence = .once(date)
    default:
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "an alarm needs non-empty days or a date"))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(time, forKey: .time)
    switch recurrence {
    case .weekly(let days): try container.encode(days.sorted(), forKey: .days)
    case .once(let date): try container.encode(date, forKey: .date)
    }
    try container.encode(label, forKey: .label)
    try container.encode(enabled, forKey: .enabled)
    try container.encode(requiresPuck, forKey: .requiresPuck)
    try container.encodeIfPresent(skippedDate, forKey: .skippedDate)
    try container.encodeIfPresent(pausedUntil, forKey: .pausedUntil)
  }
}
