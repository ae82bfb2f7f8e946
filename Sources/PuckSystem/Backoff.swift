/// How long to wait before retrying something that failed (reopening an audio device or a
/// reader): the delay starts at `initial`, doubles after each consecutive failure and never
/// exceeds `maximum`, so a device that comes back is found quickly and one that stays away
/// costs little.
///
/// Use it as a schedule (`delay(afterFailures:)`) or as a counter (`delay()` after each
/// failure, `reset()` after a success).
public struct Backoff: Sendable, Hashable {
  /// The delay after the first failure.
  public var initial: Duration
  /// The longest delay.
  public var maximum: Duration
  /// Consecutive failures counted by `delay()` since the last `reset()`.
  private var failures = 0

  /// 0.5 s, 1 s, 2 s, 4 s, 8 s, then every 10 s.
  public static let standard = Backoff(initial: .milliseconds(500), maximum: .seconds(10))

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

  /// Counts one more failure and returns the delay before the next attempt.
  public mutating func delay() -> Duration {
    failures += 1
    return delay(afterFailures: failures)
  }

  /// The last attempt succeeded: the next failure starts again from `initial`.
  public mutating func reset() {
    failures = 0
  }
}
