/// How long to wait before reopening an audio device that failed: the delay starts at
/// `initial`, doubles after each consecutive failure, and never exceeds `maximum`.
public struct RetryBackoff: Sendable, Hashable {
  /// The delay after the first failure.
  public var initial: Duration
  /// The longest delay.
  public var maximum: Duration

  /// 0.5 s, 1 s, 2 s, 4 s, 8 s, then every 10 s.
  public static let standard = RetryBackoff(initial: .milliseconds(500), maximum: .seconds(10))

  /// A backoff from `initial`, doubling up to `maximum`.
  public init(initial: Duration, maximum: Duration) {
    self.initial = initial
    self.maximum = maximum
  }

  /// The delay after the `failures`-th consecutive failure (1 = the first).
  public func delay(afterFailures failures: Int) -> Duration {
    var delay = initial
    for _ in 1..<max(failures, 1) where delay < maximum {
      delay *= 2
    }
    return min(delay, maximum)
  }
}
