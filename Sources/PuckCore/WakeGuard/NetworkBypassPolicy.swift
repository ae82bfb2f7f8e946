/// When a press from the network (Home Assistant's bypass button, or anything that can publish
/// on the dock's bypass topic) counts as a bypass (docs/DESIGN.md M9). The dock's own button
/// and `puckctl stop` need someone awake at the dock for each ring; a network press does not,
/// so an automation "when Ringing turns on, press Bypass" could otherwise keep a wake-up quiet
/// for good. Off unless the config turns it on; when on, it counts only after the ring has been
/// heard for `minimumRing`, and at most `limit` times per wake-up. So presses from the network
/// can keep a due wake-up quiet for at most `limit` retry delays, and never before the sleeper
/// has heard `minimumRing` of each ring.
public struct NetworkBypassPolicy: Hashable, Sendable {
  /// `[homeassistant] bypass_button`: whether a network press may silence a ring at all.
  public var enabled: Bool
  /// `[homeassistant] bypass_after`: how long the current ring must have been heard first.
  public var minimumRing: Duration
  /// `[homeassistant] bypass_limit`: how many network bypasses one wake-up takes.
  public var limit: Int

  /// The default: no network press counts.
  public static let off = NetworkBypassPolicy(enabled: false)

  /// A policy; when enabled, by default after 30 s of ring and once per wake-up.
  public init(enabled: Bool, minimumRing: Duration = .seconds(30), limit: Int = 1) {
    self.enabled = enabled
    self.minimumRing = minimumRing
    self.limit = limit
  }
}

/// Why a press from the network did not count.
public enum NetworkBypassRefusal: Hashable, Sendable, CustomStringConvertible {
  /// The config does not allow network presses (`bypass_button = no`, the default).
  case disabled
  /// Nothing rings.
  case notRinging
  /// The ring has not been heard for the minimum yet; this much is left.
  case tooSoon(remaining: Duration)
  /// The wake-up has taken its network bypasses already.
  case limitReached(Int)

  /// The refusal's kind without its particulars, for rate-limited reports.
  public var kind: String {
    switch self {
    case .disabled: return "disabled"
    case .notRinging: return "not ringing"
    case .tooSoon: return "too soon"
    case .limitReached: return "limit"
    }
  }

  public var description: String {
    switch self {
    case .disabled: return "the config does not allow it ([homeassistant] bypass_button = no)"
    case .notRinging: return "nothing is ringing"
    case .tooSoon(let remaining):
      return
        "the ring must be heard for \(remaining.components.seconds) s more first ([homeassistant] bypass_after)"
    case .limitReached(let limit):
      return "this wake-up has had its \(limit) network bypass(es), the limit ([homeassistant] bypass_limit)"
    }
  }
}
