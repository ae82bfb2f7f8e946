import Synchronization

/// Time that a test moves by hand, as swift-nio's `EmbeddedEventLoop.advanceTime(by:)` does:
/// readings of the wall, monotonic and boot clocks that change only when told, and timers
/// (`ManualTimer`) that fire when the clock passes their deadline. Each timer owns an eventfd
/// that becomes readable when it fires, so an `EventLoop` watches it exactly as it watches a
/// timerfd, and `EventLoop.runUntilIdle()` runs the handlers without sleeping.
///
/// It copies the kernel's timerfd rules (fs/timerfd.c), so a test sees what the daemon would:
/// a wall timer armed for an absolute time (TFD_TIMER_CANCEL_ON_SET) reads `.clockStepped`
/// after any step of the wall clock, forward or back, and after a resume from suspend (the
/// kernel's `timerfd_resume` treats a resume as a clock set); a step that carries the wall
/// clock past its deadline is absorbed into that one `.clockStepped` (the kernel clears the
/// expiry with the cancel), otherwise it stays armed. Monotonic timers never see steps and stop
/// during suspend. Arming or disarming forgets a firing not yet acknowledged (`timerfd_settime`
/// clears the count); a deadline already past fires at once.
///
/// Synchronisation: all state sits in one `Mutex`, so readings may be taken from any thread
/// (device threads read the clock); the test thread moves time; timers are armed and
/// acknowledged on the loop thread.
public final class ManualClock: TimeSource {
  struct Entry {
    let kind: Timer.Kind
    let wakeup: Wakeup
    /// The deadline on the timer's own clock, while armed and not yet fired.
    var deadline: Duration?
    /// A wall timer armed with CANCEL_ON_SET keeps noticing steps until disarmed, even after
    /// it expired (the kernel keeps it on its cancel list until the next `timerfd_settime`).
    var watchesSteps = false
    /// What `acknowledge()` will read.
    var pending: Timer.Firing?
    /// When it was armed, so timers with one deadline fire in the order they were armed.
    var sequence = 0

    /// How far the clocks must advance before it fires (nil when not armed).
    func remaining(wall: Duration, monotonic: Duration) -> Duration? {
      deadline.map { $0 - (kind == .wallClock ? wall : monotonic) }
    }

    mutating func fire(_ firing: Timer.Firing) {
      // A pending step wins over an expiry, as the kernel's read reports ECANCELED first.
      pending = pending == .clockStepped ? .clockStepped : firing
      if firing == .expired { deadline = nil }
      wakeup.signal()
    }
  }

  struct State {
    var wall: Duration
    var monotonic: Duration
    var boot: Duration
    var synchronized: Bool? = true
    var timers: [Int: Entry] = [:]
    var nextID = 0
    var nextSequence = 0

    /// Fires every armed timer whose deadline has been reached, earliest first.
    mutating func fireDue() {
      let due = timers.compactMap { id, entry -> (Duration, Int, Int)? in
        guard let left = entry.remaining(wall: wall, monotonic: monotonic), left <= .zero else { return nil }
        return (left, entry.sequence, id)
      }
      for (_, _, id) in due.sorted(by: { ($0.0, $0.1) < ($1.0, $1.1) }) {
        timers[id]?.fire(.expired)
      }
    }

    /// Tells every wall timer that watches steps that the wall clock moved by itself; one
    /// whose deadline is now past is absorbed into the step.
    mutating func wallStepped() {
      // In arming order, so the loop sees them in an order a test can rely on.
      let watching = timers.filter { $0.value.watchesSteps }.sorted { $0.value.sequence < $1.value.sequence }
      for (id, entry) in watching {
        let passed = entry.remaining(wall: wall, monotonic: monotonic).map { $0 <= .zero } ?? false
        if passed { timers[id]?.deadline = nil }
        timers[id]?.fire(.clockStepped)
      }
    }
  }

  let state: Mutex<State>

  /// A clock reading `wall` (since the Unix epoch; by default 2026-01-01 00:00 UTC),
  /// `monotonic`, and `boot` (by default equal to `monotonic`: no suspend yet).
  public init(
    wall: Duration = .seconds(1_767_225_600), monotonic: Duration = .seconds(1_000), boot: Duration? = nil
  ) {
    state = Mutex(State(wall: wall, monotonic: monotonic, boot: boot ?? monotonic))
  }

  /// The current reading of `clock`.
  public func now(_ clock: SystemClock) -> Duration {
    state.withLock { state in
      switch clock {
      case .wall: state.wall
      case .monotonic: state.monotonic
      case .boot: state.boot
      }
    }
  }

  /// A new, disarmed `ManualTimer` on this clock.
  public func makeTimer(_ kind: Timer.Kind) throws(SystemError) -> any LoopTimer {
    try ManualTimer(kind, clock: self)
  }

  /// How many of this clock's timers exist (each holds an eventfd until it is released).
  public var timerCount: Int {
    state.withLock { $0.timers.count }
  }

  /// Whether the clock counts as synchronised (NTP); true until `setSynchronized(_:)`.
  public func isSynchronized() -> Bool? {
    state.withLock { $0.synchronized }
  }

  /// Drops every deadline without telling the timers' owners, as if the kernel had lost them:
  /// a fault to inject, so a test sees whether the daemon reads its timers back.
  public func loseDeadlines() {
    state.withLock { state in
      for id in state.timers.keys { state.timers[id]?.deadline = nil }
    }
  }

  /// Sets what `isSynchronized()` answers (nil: the kernel could not say).
  public func setSynchronized(_ synchronized: Bool?) {
    state.withLock { $0.synchronized = synchronized }
  }

  /// Lets `duration` pass on all three clocks (time running normally) and fires the timers
  /// it reaches, earliest first. The loop runs their handlers later, all seeing the final time,
  /// as after a late wake-up; use `advance(by:settling:)` to run each at its own deadline.
  public func advance(by duration: Duration) {
    advance(by: duration, settling: {})
  }

  /// Lets `duration` pass in steps: the clocks stop at each deadline reached, fire the timers
  /// due there and call `settle` (typically `{ try loop.runUntilIdle() }`), so each handler
  /// sees the time it was due at, and a timer a handler arms within the span fires in it too.
  public func advance<Failure: Error>(by duration: Duration, settling settle: () throws(Failure) -> Void)
    throws(Failure)
  {
    precondition(duration >= .zero, "monotonic time cannot go back; use stepWall(by:) for the wall clock")
    var left = duration
    while true {
      let step = state.withLock { state -> Duration in
        let next = state.timers.values.compactMap {
          $0.remaining(wall: state.wall, monotonic: state.monotonic)
        }
        .min()
        let step = min(max(next ?? left, .zero), left)
        state.wall += step
        state.monotonic += step
        state.boot += step
        state.fireDue()
        return step
      }
      left -= step
      try settle()
      if left == .zero { return }
    }
  }

  /// Steps the wall clock by `offset` (forward or back), as settimeofday or an NTP step does:
  /// monotonic and boot time do not move, and every wall timer armed with CANCEL_ON_SET reads
  /// `.clockStepped`.
  public func stepWall(by offset: Duration) {
    state.withLock { state in
      state.wall += offset
      state.wallStepped()
    }
  }

  /// Sets the wall clock to `wall` (since the Unix epoch), as `stepWall(by:)`.
  public func setWall(to wall: Duration) {
    stepWall(by: wall - now(.wall))
  }

  /// A suspend of `duration` and the resume after it: wall and boot time move, monotonic time
  /// does not (so monotonic timers wait on), and wall timers read `.clockStepped` as on a
  /// clock set.
  public func suspend(for duration: Duration) {
    precondition(duration >= .zero, "a suspend lasts a non-negative time")
    state.withLock { state in
      state.wall += duration
      state.boot += duration
      state.wallStepped()
    }
  }

  /// How long until the earliest armed timer fires, if any (for asserting what is armed).
  public var untilNextFiring: Duration? {
    state.withLock { state in
      state.timers.values.compactMap { $0.remaining(wall: state.wall, monotonic: state.monotonic) }.min()
    }
  }
}
