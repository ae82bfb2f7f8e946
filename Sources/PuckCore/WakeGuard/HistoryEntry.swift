/// One line of the wake-up history (append-only, docs/DESIGN.md D6).
public struct HistoryEntry: Hashable, Sendable, Codable {
  /// How a wake-up ended, or that it never rang.
  public enum Outcome: String, Hashable, Sendable, Codable {
    /// Closed by a scan of the paired tag.
    case woke
    /// An alarm that does not require the puck, stopped.
    case stopped
    /// Closed by `puckctl override`, without a scan.
    case overridden
    /// Not rung: the dock was off or the daemon down for longer than the missed-alarm grace.
    case missed
    /// The wake-up check after a scan was answered: up and about.
    case awake
    /// The wake-up check got no answer: the wake-up opened again (back to bed?).
    case reopened
    /// Ended before it rang by a scan of a paired puck inside `lock_before` (docs/DESIGN.md S12).
    case upEarly

    /// Whether it closes a wake-up (journaled with its guard); the others are appended alone.
    public var closesWakeUp: Bool {
      switch self {
      case .woke, .stopped, .overridden, .upEarly: true
      case .missed, .awake, .reopened: false
      }
    }
  }

  public var outcome: Outcome
  /// The alarm occurrence.
  public var occurrence: AlarmOccurrence
  /// When its guard was opened; nil for a missed alarm.
  public var openedAt: Instant?
  /// When it ended (or was found missed).
  public var closedAt: Instant
  /// Bypasses before it ended.
  public var bypassCount: Int
  /// Rings started, including retries.
  public var rings: Int
  /// The puck whose scan ended it (masked UID); nil for any other ending, and in entries
  /// written before it was recorded.
  public var puck: String?
  /// Where that scan was read: `dock`, a remote reader's name, or `simulated`.
  public var reader: String?

  public init(
    outcome: Outcome, occurrence: AlarmOccurrence, openedAt: Instant?, closedAt: Instant,
    bypassCount: Int, rings: Int
  ) {
    self.outcome = outcome
    self.occurrence = occurrence
    self.openedAt = openedAt
    self.closedAt = closedAt
    self.bypassCount = bypassCount
    self.rings = rings
  }

  /// The entry for a guard that ended with `outcome` at `now`.
  public init(closing wakeGuard: WakeGuard, outcome: Outcome, at now: Instant) {
    self.init(
      outcome: outcome, occurrence: wakeGuard.occurrence, openedAt: wakeGuard.openedAt,
      closedAt: now, bypassCount: wakeGuard.bypassCount, rings: wakeGuard.ringCount)
  }
}
