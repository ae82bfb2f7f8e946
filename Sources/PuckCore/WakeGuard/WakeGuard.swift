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
  /// The bypasses of `bypassCount` that came over the network (Home Assistant's button), which
  /// `NetworkBypassPolicy` limits per wake-up; saved with the guard, so a restart does not
  /// give them back.
  public var networkBypassCount: Int

  public init(occurrence: AlarmOccurrence, openedAt: Instant, requiresPuck: Bool) {
    self.id = "\(occurrence.alarmID)@\(occurrence.scheduledAt.unixSeconds)"
    self.occurrence = occurrence
    self.openedAt = openedAt
    self.phase = .ringing(since: openedAt)
    self.bypassCount = 0
    self.ringCount = 1
    self.requiresPuck = requiresPuck
    self.networkBypassCount = 0
  }

  private enum CodingKeys: String, CodingKey {
    case id, occurrence, openedAt, phase, bypassCount, ringCount, requiresPuck, networkBypassCount
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(String.self, forKey: .id)
    occurrence = try container.decode(AlarmOccurrence.self, forKey: .occurrence)
    openedAt = try container.decode(Instant.self, forKey: .openedAt)
    phase = try container.decode(Phase.self, forKey: .phase)
    bypassCount = try container.decode(Int.self, forKey: .bypassCount)
    ringCount = try container.decode(Int.self, forKey: .ringCount)
    requiresPuck = try container.decode(Bool.self, forKey: .requiresPuck)
    // An optional addition, so schema version 1 still describes the file: absent in files
    // written before it, and an older puckd ignores it.
    networkBypassCount = try container.decodeIfPresent(Int.self, forKey: .networkBypassCount) ?? 0
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(occurrence, forKey: .occurrence)
    try container.encode(openedAt, forKey: .openedAt)
    try container.encode(phase, forKey: .phase)
    try container.encode(bypassCount, forKey: .bypassCount)
    try container.encode(ringCount, forKey: .ringCount)
    try container.encode(requiresPuck, forKey: .requiresPuck)
    if networkBypassCount > 0 { try container.encode(networkBypassCount, forKey: .networkBypassCount) }
  }

  /// Whether the guard is ringing now.
  public var isRinging: Bool {
    if case .ringing = phase { return true }
    return false
  }

  /// When the current ring started, nil while quiet.
  public var ringingSince: Instant? {
    if case .ringing(let since) = phase { return since }
    return nil
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
