import CLinux
import Glibc

/// Where a component gets its time: readings of the three clocks and the timers that fire on
/// them. The daemon is handed one (`SystemTimeSource` in production, a `ManualClock` in tests),
/// so a test can step the wall clock, cross a suspend or wait an hour in microseconds. The
/// `EventLoop` is made with it and makes every timer from it (`EventLoop.timer(_:handler:)`).
///
/// `Sendable` because readings are taken from device threads too; the timers it makes belong to
/// the loop thread.
public protocol TimeSource: Sendable {
  /// The time since `clock`'s origin (for `.wall`, since the Unix epoch).
  func now(_ clock: SystemClock) -> Duration
  /// A new, disarmed timer on `kind`'s clock, for the `EventLoop` to watch: components get
  /// theirs from `EventLoop.timer(_:handler:)`, which watches it at once.
  func makeTimer(_ kind: Timer.Kind) throws(SystemError) -> any LoopTimer
  /// Whether the wall clock is synchronised (NTP), or nil when that cannot be read: how far a
  /// backward step may be trusted depends on it.
  func isSynchronized() -> Bool?
}

extension TimeSource {
  /// The monotonic clock as the program's one elapsed-time type: what the daemon measures
  /// intervals with (a request's retry, a flood's reports, a press's repeat).
  public func monotonicNow() -> MonotonicInstant { MonotonicInstant(sinceOrigin: now(.monotonic)) }

  /// Whole seconds since the Unix epoch on the wall clock (rounded down, as the daemon's
  /// `Instant`s are).
  public func wallSeconds() -> Int64 { now(.wall).components.seconds }

  /// Whole seconds of the boot clock, which neither steps nor stops in suspend.
  public func bootSeconds() -> Int64 { now(.boot).components.seconds }
}

/// The kernel's clocks and timerfds: `clock_gettime` readings and `Timer`s. Stateless, so it
/// costs nothing while idle: the loop sleeps in `epoll_wait` until a timerfd fires.
public struct SystemTimeSource: TimeSource {
  /// The real clocks.
  public init() {}

  /// `clock_gettime` on `clock`.
  public func now(_ clock: SystemClock) -> Duration { clock.now() }

  /// A timerfd (`timerfd_create`).
  public func makeTimer(_ kind: Timer.Kind) throws(SystemError) -> any LoopTimer {
    try Timer(kind)
  }

  /// The kernel's clock discipline (`adjtimex`): synchronised unless in `TIME_ERROR` or
  /// flagged `STA_UNSYNC`.
  public func isSynchronized() -> Bool? {
    var info = timex()
    let state = adjtimex(&info)
    if state < 0 { return nil }
    return state != TIME_ERROR && (info.status & STA_UNSYNC) == 0
  }
}
