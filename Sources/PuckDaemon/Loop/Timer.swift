import CLinux
import Glibc
import PuckCore

/// A timerfd. Wall-clock deadlines (alarms, retries) use `CLOCK_REALTIME` absolute timers with
/// `TFD_TIMER_CANCEL_ON_SET`, so a clock step wakes the loop to recompute instead of leaving a
/// timer armed for the old clock; durations (ring timeout, idle clients) use `CLOCK_MONOTONIC`.
final class Timer {
  enum Kind {
    /// Absolute wall-clock deadlines that notice clock steps.
    case wallClock
    /// Relative durations on the monotonic clock.
    case monotonic
  }

  /// What a timer wake-up means.
  enum Firing {
    /// The deadline passed.
    case expired
    /// The wall clock was stepped (settimeofday, NTP step); recompute deadlines.
    case clockStepped
  }

  let fd: Int32
  let kind: Kind
  private(set) var isArmed = false

  init(_ kind: Kind) throws(SystemError) {
    self.kind = kind
    let clock = kind == .wallClock ? CLOCK_REALTIME : CLOCK_MONOTONIC
    fd = try systemCall("timerfd_create") {
      timerfd_create(clock, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
    }
  }

  deinit {
    close(fd)
  }

  /// Arms a wall-clock timer for `instant` (`timerfd_settime` with ABSTIME | CANCEL_ON_SET).
  func arm(at instant: Instant) throws(SystemError) {
    precondition(kind == .wallClock)
    // An instant already past still fires (timerfd fires at once for a past absolute time),
    // but 0 would disarm, so clamp to 1 s after the epoch.
    var spec = itimerspec()
    spec.it_value.tv_sec = max(1, Int(instant.unixSeconds))
    let flags = Int32(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)
    try systemCall("timerfd_settime") { timerfd_settime(fd, flags, &spec, nil) }
    isArmed = true
  }

  /// Arms a monotonic timer `duration` from now; a zero or negative duration fires at once.
  func arm(after duration: Duration) throws(SystemError) {
    precondition(kind == .monotonic)
    let (seconds, attoseconds) = duration.components
    var spec = itimerspec()
    spec.it_value.tv_sec = Int(max(0, seconds))
    spec.it_value.tv_nsec = Int(max(0, attoseconds / 1_000_000_000))
    if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1 }
    try systemCall("timerfd_settime") { timerfd_settime(fd, 0, &spec, nil) }
    isArmed = true
  }

  /// Disarms the timer.
  func disarm() {
    var spec = itimerspec()
    if kind == .wallClock {
      // Keep CANCEL_ON_SET semantics off while disarmed; an idle daemon has no deadline.
      _ = timerfd_settime(fd, 0, &spec, nil)
    } else {
      _ = timerfd_settime(fd, 0, &spec, nil)
    }
    isArmed = false
  }

  /// Reads the timer after epoll said it is readable: expired, stepped clock, or nothing
  /// (a spurious wake-up after a re-arm).
  func acknowledge() -> Firing? {
    var expirations: UInt64 = 0
    let result = read(fd, &expirations, 8)
    if result == 8 {
      isArmed = false
      return .expired
    }
    if result < 0 && errno == ECANCELED {
      return .clockStepped
    }
    return nil
  }
}
