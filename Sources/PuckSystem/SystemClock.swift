import CLinux
import Glibc

/// The kernel's clocks, read with `clock_gettime`, as `Duration`s since each clock's origin.
///
/// The one rounding rule of the program: a `Duration` becomes a coarser unit (a `timespec`'s
/// nanoseconds, `poll`'s milliseconds, ALSA's microseconds) by rounding *up* to the next whole
/// unit, and a negative duration becomes zero. Every conversion here is of a wait or a
/// deadline, and rounding up means a wait never ends before the time it was asked for (an early
/// wake would only loop and wait again); readings (`timespec` → `Duration`) are exact.
public enum SystemClock: Sendable {
  /// `CLOCK_REALTIME`: wall time since the Unix epoch; steps with settimeofday and NTP.
  case wall
  /// `CLOCK_MONOTONIC`: never steps; stops while the machine is suspended.
  case monotonic
  /// `CLOCK_BOOTTIME`: like `monotonic`, but keeps counting through suspend.
  case boot

  /// The `clockid_t` this clock is read with.
  public var id: clockid_t {
    switch self {
    case .wall: CLOCK_REALTIME
    case .monotonic: CLOCK_MONOTONIC
    case .boot: CLOCK_BOOTTIME
    }
  }

  /// The time since this clock's origin (`clock_gettime`, which cannot fail for these clocks).
  public func now() -> Duration {
    Duration(reading: timespecNow())
  }

  /// The raw `clock_gettime` reading.
  public func timespecNow() -> timespec {
    var time = timespec()
    _ = clock_gettime(id, &time)
    return time
  }
}

extension Duration {
  /// The duration a kernel `timespec` names (exact: nanoseconds fit in attoseconds).
  public init(reading time: timespec) {
    self = .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
  }

  /// The duration in whole nanoseconds, signed, saturating at `Int64`'s bounds: for arithmetic
  /// on monotonic instants and beat patterns, not for waits. Exact for every duration built from
  /// whole nanoseconds (all clock readings and config values); a sub-nanosecond part truncates
  /// toward zero, so that `(a - b)` and `-(b - a)` agree, which rounding up would break.
  public var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    let (total, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
    if sumOverflow { return seconds < 0 ? .min : .max }
    return total
  }

  /// Whole nanoseconds, rounded up; zero when negative (the rule in `SystemClock`).
  public var roundedUpNanoseconds: Int64 { roundedUp(attosecondsPerUnit: 1_000_000_000) }

  /// Whole microseconds, rounded up; zero when negative (the rule in `SystemClock`).
  public var roundedUpMicroseconds: Int64 { roundedUp(attosecondsPerUnit: 1_000_000_000_000) }

  /// Whole milliseconds, rounded up; zero when negative (the rule in `SystemClock`). Saturates
  /// rather than overflowing for absurd durations.
  public var roundedUpMilliseconds: Int64 { roundedUp(attosecondsPerUnit: 1_000_000_000_000_000) }

  /// A `timespec` for a wait of this long: nanoseconds rounded up, negative as zero (the rule
  /// in `SystemClock`).
  public var waitTimespec: timespec {
    let nanoseconds = roundedUpNanoseconds
    return timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
  }

  /// `Int32` milliseconds for `poll`/`epoll_wait`, rounded up, clamped to `0...Int32.max`.
  public var pollMilliseconds: Int32 { Int32(clamping: roundedUpMilliseconds) }

  private func roundedUp(attosecondsPerUnit unit: Int64) -> Int64 {
    let (seconds, attoseconds) = components
    // `components` keeps both parts with the same sign, so a negative duration has seconds < 0
    // or attoseconds < 0.
    guard seconds >= 0, attoseconds >= 0, self > .zero else { return 0 }
    let unitsPerSecond = 1_000_000_000_000_000_000 / unit
    let fraction = (attoseconds + unit - 1) / unit
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: unitsPerSecond)
    guard !overflow else { return .max }
    let (total, sumOverflow) = scaled.addingReportingOverflow(fraction)
    return sumOverflow ? .max : total
  }
}
