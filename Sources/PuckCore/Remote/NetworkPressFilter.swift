/// Which commands from the network are presses at all (docs/DESIGN.md M9), before
/// `NetworkBypassPolicy` judges them. A retained command is the broker handing an old message
/// to a new subscription (after every restart or reconnect), not someone pressing now; a
/// command within `repeatWindow` of the last press is that press again (a double click, a
/// redelivery). Pure: the caller gives the time as a `Moment` on a clock that does not step
/// (PuckSystem's `MonotonicInstant` in the shell).
public struct NetworkPressFilter<Moment: InstantProtocol>: Hashable, Sendable
where Moment.Duration == Duration {
  /// What a command is.
  public enum Verdict: Hashable, Sendable {
    case press
    /// Kept by the broker from before this subscription: ignored.
    case retained
    /// Within `repeatWindow` of the last press: ignored.
    case repeated
  }

  /// How soon after a press another one is the same press.
  public static var repeatWindow: Duration { .seconds(2) }

  private var lastPress: Moment?

  public init() {}

  /// What a command that arrived at `now`, with the broker's `retained` flag, is.
  public mutating func admit(retained: Bool, now: Moment) -> Verdict {
    guard !retained else { return .retained }
    if let lastPress, lastPress.duration(to: now) < Self.repeatWindow { return .repeated }
    lastPress = now
    return .press
  }
}
