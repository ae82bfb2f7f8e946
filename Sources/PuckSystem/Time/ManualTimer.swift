import Glibc

/// A timer of a `ManualClock`: it fires when the test moves the clock past its deadline. Its
/// `fd` is an eventfd the clock signals, so the loop watches it as it watches a timerfd. The
/// rules it follows are the kernel's, listed on `ManualClock`.
public final class ManualTimer: LoopTimer {
  /// The eventfd to watch; -1 once closed.
  public var fd: Int32 { wakeup.fd }
  /// The clock it runs on.
  public let kind: Timer.Kind
  private let clock: ManualClock
  private let id: Int
  private let wakeup: Wakeup

  /// Makes a disarmed timer on `clock` (`eventfd`).
  public init(_ kind: Timer.Kind, clock: ManualClock) throws(SystemError) {
    let wakeup = try Wakeup()
    self.kind = kind
    self.clock = clock
    self.wakeup = wakeup
    id = clock.state.withLock { state in
      defer { state.nextID += 1 }
      state.timers[state.nextID] = ManualClock.Entry(kind: kind, wakeup: wakeup)
      return state.nextID
    }
  }

  deinit {
    close()
  }

  /// Leaves the clock (it is no longer counted or fired) and closes the eventfd.
  public func close() {
    clock.state.withLock { _ = $0.timers.removeValue(forKey: id) }
    wakeup.close()
  }

  /// Whether a deadline is set and its expiry has not been acknowledged.
  public var isArmed: Bool {
    clock.state.withLock { state in
      guard let entry = state.timers[id] else { return false }
      return entry.deadline != nil || entry.pending == .expired
    }
  }

  /// Arms for `unixSeconds` on the wall clock, noticing steps; a past time fires at once.
  public func arm(atUnixSeconds unixSeconds: Int64) throws(SystemError) {
    precondition(kind == .wallClock)
    // Clamped as `Timer` clamps it: 0 would disarm a timerfd.
    try arm(deadline: .seconds(max(1, unixSeconds)), watchesSteps: true)
  }

  /// Arms for `duration` from now on the monotonic clock; zero or negative fires at once.
  public func arm(after duration: Duration) throws(SystemError) {
    precondition(kind == .monotonic)
    let deadline = clock.now(.monotonic) + max(duration, .zero)
    try arm(deadline: deadline, watchesSteps: false)
  }

  /// Throws `EBADF` once closed, as `timerfd_settime` on a closed descriptor does.
  private func arm(deadline: Duration, watchesSteps: Bool) throws(SystemError) {
    let open = clock.state.withLock { state -> Bool in
      guard state.timers[id] != nil else { return false }
      wakeup.drain()
      state.timers[id]?.deadline = deadline
      state.timers[id]?.watchesSteps = watchesSteps
      state.timers[id]?.pending = nil
      state.timers[id]?.sequence = state.nextSequence
      state.nextSequence += 1
      state.fireDue()
      return true
    }
    guard open else { throw SystemError("timerfd_settime", code: EBADF) }
  }

  /// Disarms and forgets an unacknowledged firing; stops noticing steps.
  public func disarm() {
    clock.state.withLock { state in
      wakeup.drain()
      state.timers[id]?.deadline = nil
      state.timers[id]?.watchesSteps = false
      state.timers[id]?.pending = nil
    }
  }

  /// The deadline while armed and not yet expired, as the kernel would report it.
  public func readBack() -> Duration? {
    clock.state.withLock { $0.timers[id]?.deadline }
  }

  /// What fired since the last call: expired, clock stepped, or nothing.
  public func acknowledge() -> Timer.Firing? {
    clock.state.withLock { state in
      wakeup.drain()
      defer { state.timers[id]?.pending = nil }
      return state.timers[id]?.pending
    }
  }
}
