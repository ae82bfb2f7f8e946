/// The login limit per address (issue 25: "the 20th wrong password in a minute is
/// rate-limited"): after `allowed` wrong passwords from one key within `window`, further tries
/// from it are refused unchecked until the oldest of them is a `window` old. A right password
/// clears the key. Time is a parameter (a monotonic reading). The web app keeps two: one per
/// address (`allowedFailures`), and a looser one per network (`allowedPerNetwork`, an IPv6 /64),
/// since one host can take any number of addresses in its /64, while every host of a home
/// network shares it, so one guessing device must not lock out the rest at 19.
///
/// The table is bounded (`capacity` addresses; the one with the fewest recent failures goes), so a
/// flood of addresses costs memory only up to it. An attacker with many addresses still pays
/// one yescrypt hash per guess, which is the point of yescrypt.
public struct LoginLimiter: Sendable {
  /// The span over which failures count.
  public static let window: Duration = .seconds(60)
  /// Wrong passwords allowed from one address within `window`; the next try is refused.
  public static let allowedFailures = 19
  /// Wrong passwords allowed from one network (an IPv6 /64) within `window`.
  public static let allowedPerNetwork = 100
  /// Addresses tracked at most.
  public static let capacity = 1024

  /// Wrong passwords allowed per key within `window`.
  public let allowed: Int
  /// Each address's recent failures, oldest first.
  private var failures: [String: [Duration]] = [:]

  public init(allowed: Int = LoginLimiter.allowedFailures) {
    self.allowed = allowed
  }

  /// Whether a try from `address` is refused now, and if so how long until it is not.
  public func refusal(for address: String, now: Duration) -> Duration? {
    let recent = (failures[address] ?? []).filter { now - $0 < Self.window }
    guard recent.count >= allowed, let oldest = recent.first else { return nil }
    return Self.window - (now - oldest)
  }

  /// A wrong password from `address`.
  public mutating func recordFailure(from address: String, now: Duration) {
    var recent = (failures[address] ?? []).filter { now - $0 < Self.window }
    recent.append(now)
    if recent.count > allowed { recent.removeFirst(recent.count - allowed) }
    if failures[address] == nil, failures.count >= Self.capacity {
      failures = failures.filter { now - ($0.value.last ?? now) < Self.window }
      // The address with the fewest recent failures goes: a flood of new addresses, one try
      // each, cannot push out the one that has been guessing all along.
      if failures.count >= Self.capacity,
        let least = failures.min(by: {
          ($0.value.count, $0.value.last ?? now) < ($1.value.count, $1.value.last ?? now)
        })?
        .key
      {
        failures[least] = nil
      }
    }
    failures[address] = recent
  }

  /// The right password from `address`: its count starts again.
  public mutating func recordSuccess(from address: String) {
    failures[address] = nil
  }
}
