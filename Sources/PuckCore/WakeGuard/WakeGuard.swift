/// An open wake-up (docs/DESIGN.md §3): opened when an alarm fires, closed only by a scan of the paired
/// tag (or, for an alarm that does not require the puck, by a stop), or by a root override.
public struct WakeGuard: Hashable, Sendable, Codable, Identifiable {
  /// Where a guard is between rings.
  public enum Phase: Hashable, Sendable, Codable {
    /// Sound is on, since this instant.
    case ringing(since: Instant)
    /// Silenced by a bypass; rings again at this instant.
    case quiet(retryAt: Instant)
  }

  /// `ALARMID@UNIXSECONDS`: unique per occurrence, stable across restarts.
  public var id: String
  /// The alarm firing this guard belongs to.
  public var occurrence: AlarmOccurrence
  /// When the guard was opened (the fire, or a late ring after downtime).
  public var openedAt: Instant
  /// Ringing or waiting for the retry.
  public var phase: Phase
  /// Stops (button, `puckctl stop`) and untouched ring timeouts so far.
  public var bypassCount: Int
  /// Rings started so far: 1 for the first, 2 for retry 1, and so on.
  public var ringCount: Int
  /// Whether a scan is needed to close it. False for an alarm set with `--no-puck`, and for an
  /// alarm that fired while no tag was paired (there would be nothing to scan).
  public var requiresPuck: Bool

  public init(occurrence: AlarmOccurrence, openedAt: Instant, requiresPuck: Bool) {
    self.id = "\(occurrence.alarmID)@\(occurrence.scheduledAt.unixSeconds)"
    self.occurrence = occurrence
    self.openedAt = openedAt
    self.phase = .ringing(since: openedAt)
    self.bypassCount = 0
    self.ringCount = 1
    self.requiresPuck = requiresPuck
  }

  /// Whether the guard is ringing now.
  public var isRinging: Bool {
    if case .ringing = phase { return true }
    return false
  }

  /// The retry instant while quiet, nil while ringing.
  public var retryAt: Instant? {
    if case .quiet(let at) = phase { return at }
    return nil
  }

  /// The identity of its current (or, while quiet, its last) ring.
  public var ringIdentity: RingIdentity {
    RingIdentity(occurrence: occurrence, retry: ringCount - 1)
  }
}
