/// A one-shot timer the loop watches through a descriptor: the real timerfd `Timer`, or a
/// `ManualTimer` that a `ManualClock` fires. A `TimeSource` makes them for its `EventLoop`,
/// which watches each and hands it out as a `TimerHandle` (`EventLoop.timer(_:handler:)`), so a
/// test can give the daemon manual time without changing how it arms its timers.
public protocol LoopTimer: AnyObject {
  /// The descriptor that becomes readable when the timer fires (watch it with `EventLoop`).
  var fd: Int32 { get }
  /// The clock it runs on.
  var kind: Timer.Kind { get }
  /// Whether a deadline is set and its expiry has not been acknowledged.
  var isArmed: Bool { get }
  /// Arms a wall-clock timer for an absolute time, noticing clock steps (`.wallClock` only).
  func arm(atUnixSeconds unixSeconds: Int64) throws(SystemError)
  /// Arms a monotonic timer `duration` from now; zero or negative fires at once (`.monotonic`
  /// only).
  func arm(after duration: Duration) throws(SystemError)
  /// Disarms the timer and forgets a firing not yet acknowledged; a wall timer stops noticing
  /// clock steps.
  func disarm()
  /// Reads what woke the loop: expired, clock stepped, or nothing (a spurious wake-up).
  func acknowledge() -> Timer.Firing?
  /// The deadline as the clock holds it now (the kernel's `timerfd_gettime` for a timerfd), on
  /// the timer's own clock; nil when nothing is armed. What status trusts, rather than the
  /// memory of an `arm` that returned (docs/DESIGN.md R4).
  func readBack() -> Duration?
  /// Closes its descriptor now (the loop must have stopped watching it); nothing fires after.
  func close()
}

extension Timer: LoopTimer {}
