import Glibc
import PuckSystem

/// A reading of the system's monotonic clock (`CLOCK_MONOTONIC`), in nanoseconds since an
/// arbitrary origin: the time base of the buzzer and LED patterns and of the kernel's GPIO edge
/// timestamps. Only differences between two readings mean anything.
public struct MonotonicInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Nanoseconds since the clock's origin (boot, on Linux).
  public var nanoseconds: Int64

  /// The instant `nanoseconds` after the clock's origin.
  public init(nanoseconds: Int64) {
    self.nanoseconds = nanoseconds
  }

  /// The instant a `timespec` from the kernel names.
  init(_ time: timespec) {
    nanoseconds = Duration(reading: time).nanoseconds
  }

  /// Reads `CLOCK_MONOTONIC` (`clock_gettime`, which cannot fail for this clock).
  public static func now() -> MonotonicInstant {
    MonotonicInstant(SystemClock.monotonic.timespecNow())
  }

  /// The instant `duration` later (earlier when negative).
  public static func + (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
    MonotonicInstant(nanoseconds: instant.nanoseconds &+ duration.nanoseconds)
  }

  /// The time from `earlier` to `later`; negative when `later` is before `earlier`.
  public static func - (later: MonotonicInstant, earlier: MonotonicInstant) -> Duration {
    .nanoseconds(later.nanoseconds &- earlier.nanoseconds)
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
