import Glibc

/// A reading of the system's monotonic clock (`CLOCK_MONOTONIC`), in nanoseconds since an
/// arbitrary origin (boot): the program's one type for elapsed time. Device threads time their
/// polls, stalls and heartbeats with it, the buzzer and LED patterns and the kernel's GPIO edge
/// timestamps are in it, and the daemon reads it from its `TimeSource` (`monotonicNow()`), so a
/// `ManualClock` moves it in tests. Only differences between two readings mean anything; the
/// clock never steps, and stops while the machine is suspended.
///
/// An `InstantProtocol`, so the core's pure types that measure elapsed time (`RepeatLimiter`,
/// `NetworkPressFilter`) take it without knowing the clock.
public struct MonotonicInstant: InstantProtocol, CustomStringConvertible {
  /// Nanoseconds since the clock's origin (boot, on Linux).
  public var nanoseconds: Int64

  /// The instant `nanoseconds` after the clock's origin.
  public init(nanoseconds: Int64) {
    self.nanoseconds = nanoseconds
  }

  /// The instant `elapsed` after the clock's origin: a `TimeSource` reading of `.monotonic`.
  public init(sinceOrigin elapsed: Duration) {
    nanoseconds = elapsed.nanoseconds
  }

  /// The time since the clock's origin: for a pure model that counts in `Duration`s.
  public var sinceOrigin: Duration { .nanoseconds(nanoseconds) }

  /// The instant a `timespec` from the kernel names (a `CLOCK_MONOTONIC` reading, a GPIO edge's
  /// timestamp).
  public init(reading time: timespec) {
    self.init(sinceOrigin: Duration(reading: time))
  }

  /// Reads `CLOCK_MONOTONIC` (`clock_gettime`, which cannot fail for this clock). Code that
  /// has a `TimeSource` reads `monotonicNow()` from it instead, so tests can move it.
  public static func now() -> MonotonicInstant {
    MonotonicInstant(reading: SystemClock.monotonic.timespecNow())
  }

  /// The instant `duration` later (earlier when negative).
  public static func + (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
    MonotonicInstant(nanoseconds: instant.nanoseconds &+ duration.nanoseconds)
  }

  /// The instant `duration` earlier (later when negative).
  public static func - (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
    MonotonicInstant(nanoseconds: instant.nanoseconds &- duration.nanoseconds)
  }

  /// The time from `earlier` to `later`; negative when `later` is before `earlier`.
  public static func - (later: MonotonicInstant, earlier: MonotonicInstant) -> Duration {
    .nanoseconds(later.nanoseconds &- earlier.nanoseconds)
  }

  /// The instant `duration` later (`InstantProtocol`).
  public func advanced(by duration: Duration) -> MonotonicInstant {
    self + duration
  }

  /// The time from this instant to `other` (`InstantProtocol`).
  public func duration(to other: MonotonicInstant) -> Duration {
    other - self
  }

  /// Whether `lhs` is earlier than `rhs`.
  public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
    lhs.nanoseconds < rhs.nanoseconds
  }

  /// Seconds since the clock's origin, to the nanosecond: `12.000500000s`.
  public var description: String {
    let seconds = nanoseconds / 1_000_000_000
    let fraction = String(abs(nanoseconds % 1_000_000_000))
    return "\(seconds).\(String(repeating: "0", count: 9 - fraction.count))\(fraction)s"
  }
}
