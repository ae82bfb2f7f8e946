import Glibc

/// A timer on an `EventLoop`, made by `EventLoop.timer(_:handler:)`: the loop watches it from
/// the moment it exists and calls the handler each time it fires, so there is no timer that
/// was made and never watched. Its clock is the loop's `TimeSource` (a timerfd, or a
/// `ManualTimer` in tests).
///
/// Ownership: the component that made it holds it, and it lives as long as that holder (the
/// loop keeps only the handler). `cancel()` stops watching it and closes its descriptor, now;
/// releasing the last reference does the same. A cancelled timer never fires again: `arm`
/// throws `EBADF`, `disarm` does nothing, `isArmed` is false.
///
/// Synchronisation: none; the loop thread only, like the loop.
public final class TimerHandle {
  /// The clock it runs on.
  public let kind: Timer.Kind
  /// The timer, until `cancel()`.
  private var timer: (any LoopTimer)?
  /// Stops the loop watching a descriptor (`EventLoop.unwatch`, without holding the loop).
  private let unwatch: (Int32) -> Void

  init(_ timer: any LoopTimer, unwatch: @escaping (Int32) -> Void) {
    kind = timer.kind
    self.timer = timer
    self.unwatch = unwatch
  }

  deinit {
    cancel()
  }

  /// Whether a deadline is set and has not fired yet.
  public var isArmed: Bool { timer?.isArmed ?? false }

  /// Whether `cancel()` has run.
  public var isCancelled: Bool { timer == nil }

  /// Arms a wall-clock timer for `unixSeconds`; it also fires `.clockStepped` when the wall
  /// clock is set, until disarmed (`.wallClock` only). A time already past fires at once.
  public func arm(atUnixSeconds unixSeconds: Int64) throws(SystemError) {
    try live("timerfd_settime").arm(atUnixSeconds: unixSeconds)
  }

  /// Arms a monotonic timer `duration` from now; zero or negative fires at once (`.monotonic`
  /// only).
  public func arm(after duration: Duration) throws(SystemError) {
    try live("timerfd_settime").arm(after: duration)
  }

  /// Disarms it, forgetting a firing the handler has not seen yet.
  public func disarm() {
    timer?.disarm()
  }

  /// The deadline as the clock holds it (`timerfd_gettime`), on the timer's own clock; nil
  /// when nothing is armed or it is cancelled.
  public func readBack() -> Duration? {
    timer?.readBack()
  }

  /// Stops the loop watching the timer and closes it; the handler is not called again. Does
  /// nothing the second time.
  public func cancel() {
    guard let timer else { return }
    self.timer = nil
    // Unwatched before it is closed, so the loop never holds a number the kernel may reuse.
    unwatch(timer.fd)
    timer.close()
  }

  private func live(_ call: String) throws(SystemError) -> any LoopTimer {
    guard let timer else { throw SystemError(call, code: EBADF) }
    return timer
  }
}
