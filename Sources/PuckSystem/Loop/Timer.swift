import CLinux
import Glibc

/// A timerfd. Wall-clock deadlines (alarms, retries) use `CLOCK_REALTIME` absolute timers with
/// `TFD_TIMER_CANCEL_ON_SET`, so a clock step wakes the loop to recompute instead of leaving a
/// timer armed for the old clock; durations (ring timeout, idle clients) use `CLOCK_MONOTONIC`.
public final class Timer {
  /// Which clock a timer runs on.
  public enum Kind: Sendable {
    /// Absolute wall-clock deadlines that notice clock steps.
    case wallClock
    /// Relative durations on the monotonic clock.
    case monotonic
  }

  /// What a timer wake-up means.
  public enum Firing: Sendable {
    /// The deadline passed.
    case expired
    /// The wall clock was stepped (settimeofday, NTP step); recompute deadlines.
    case clockStepped
  }

  /// The timerfd, owned for the timer's life.
  private let descriptor: FileDescriptor
  /// The timerfd to watch (borrowed).
  public var fd: Int32 { descriptor.rawValue }
  /// The clock it runs on.
  public let kind: Kind
  /// Whether a deadline is set and has not fired.
  public private(set) var isArmed = false

  /// Makes the timerfd (`timerfd_create`), disarmed.
  public init(_ kind: Kind) throws(SystemError) {
    self.kind = kind
    let clock = kind == .wallClock ? CLOCK_REALTIME : CLOCK_MONOTONIC
    descriptor = try FileDescriptor("timerfd_create") {
      timerfd_create(clock, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
    }
  }

  /// Arms a wall-clock timer for `unixSeconds` (`timerfd_settime` with ABSTIME |
  /// CANCEL_ON_SET). PuckDaemon's `arm(at: Instant)` calls this; PuckSystem knows no `Instant`.
  public func arm(atUnixSeconds unixSeconds: Int64) throws(SystemError) {
    precondition(kind == .wallClock)
    // An instant already past still fires (timerfd fires at once for a past absolute time),
    // but 0 would disarm, so clamp to 1 s after the epoch.
    var spec = itimerspec()
    spec.it_value.tv_sec = max(1, Int(unixSeconds))
    let flags = Int32(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)
    try systemCall("timerfd_settime") { timerfd_settime(fd, flags, &spec, nil) }
    isArmed = true
  }

  /// Arms a monotonic timer `duration` from now; a zero or negative duration fires at once.
  public func arm(after duration: Duration) throws(SystemError) {
    precondition(kind == .monotonic)
    var spec = itimerspec()
    spec.it_value = duration.waitTimespec
    if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1 }
    try systemCall("timerfd_settime") { timerfd_settime(fd, 0, &spec, nil) }
    isArmed = true
  }

  /// Disarms the timer.
  public func disarm() {
    // Flags 0 also drops CANCEL_ON_SET while disarmed: an idle timer has no deadline to move.
    var spec = itimerspec()
    _ = try? systemCall("timerfd_settime") { timerfd_settime(fd, 0, &spec, nil) }
    isArmed = false
  }

  /// The deadline the kernel holds, read with `timerfd_gettime` (which gives the time left,
  /// absolute timers included) plus the clock's reading; nil when the timer is disarmed or has
  /// expired.
  public func readBack() -> Duration? {
    var spec = itimerspec()
    guard (try? systemCall("timerfd_gettime", { timerfd_gettime(fd, &spec) })) != nil else { return nil }
    guard spec.it_value.tv_sec != 0 || spec.it_value.tv_nsec != 0 else { return nil }
    let clock: SystemClock = kind == .wallClock ? .wall : .monotonic
    return clock.now() + Duration(reading: spec.it_value)
  }

  /// Closes the timerfd (the kernel drops its deadline with it); `arm` then fails with `EBADF`.
  public func close() {
    descriptor.close()
    isArmed = false
  }

  /// Reads the timer after epoll said it is readable: expired, stepped clock, or nothing
  /// (a spurious wake-up after a re-arm).
  public func acknowledge() -> Firing? {
    var expirations: UInt64 = 0
    do throws(SystemError) {
      guard try systemCall("read", { read(fd, &expirations, 8) }) == 8 else { return nil }
      isArmed = false
      return .expired
    } catch {
      return error.code == ECANCELED ? .clockStepped : nil
    }
  }
}
