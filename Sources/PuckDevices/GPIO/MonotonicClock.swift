import PuckSystem

/// Where the GPIO logic reads the time: the system's monotonic clock, or a manual clock that a
/// test moves by hand.
public protocol MonotonicClock: Sendable {
  /// The current instant.
  func now() -> MonotonicInstant
}

/// The system's `CLOCK_MONOTONIC`.
public struct SystemMonotonicClock: MonotonicClock {
  /// The system clock.
  public init() {}

  /// Reads `CLOCK_MONOTONIC`.
  public func now() -> MonotonicInstant { .now() }
}
