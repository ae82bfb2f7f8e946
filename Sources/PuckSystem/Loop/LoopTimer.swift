/// A one-shot timer the loop watches through a descriptor: the real timerfd `Timer`, or a
/// `ManualTimer` that a `ManualClock` fires. Components hold `any LoopTimer` made by their
/// `TimeSource`, so a test can hand them manual time without changing how they arm, watch and
/// acknowledge it.
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
}

extension Timer: LoopTimer {}
