import PuckCore
import PuckSystem
import Synchronization

/// What `BuzzerDriver` and `StatusLED` share: a patterned output line behind a `Mutex`, the
/// device's own state beside it, and the timing — `step()` drives the level due now and returns
/// the next deadline, run by a `DeadlineThread` of its own or by the caller with a manual clock.
/// The line is opened and driven off when made, and released by `shutdown()` or `deinit`.
///
/// Synchronisation: `Sendable` without `@unchecked`; the line and `Mode` are behind one `Mutex`,
/// and the line is only touched while it is held.
final class TimedOutput<Mode: Sendable>: Sendable {
  struct State {
    /// The line; nil when the device is not configured.
    var output: PatternedLine?
    /// The device's own state (ringing, what the LED shows).
    var mode: Mode
    var shutDown = false
    /// A failure to start the timing thread.
    var threadFault: GPIOError?
  }

  let clock: any MonotonicClock
  let openLine: GPIOOutputOpener
  private let state: Mutex<State>
  private let thread: DeadlineThread?

  /// Opens `line` (when configured) and drives it off. Without `clock` it reads the system's
  /// monotonic clock and steps itself on a thread of its own; with one, its caller steps it.
  init(
    line: GPIOLineSettings?, mode: Mode, clock: (any MonotonicClock)?, openLine: @escaping GPIOOutputOpener
  ) {
    let ownThread = clock == nil
    let clock = clock ?? SystemMonotonicClock()
    self.clock = clock
    self.openLine = openLine
    var output = line.map { PatternedLine(settings: $0) }
    if output?.open(with: openLine) == true {
      _ = output?.step(at: clock.now(), force: true)
    }
    var threadFault: GPIOError?
    var thread: DeadlineThread?
    if line != nil && ownThread {
      do {
        thread = try DeadlineThread()
      } catch {
        threadFault = error
      }
    }
    self.thread = thread
    state = Mutex(State(output: output, mode: mode, threadFault: threadFault))
    do {
      try thread?.start { [weak self] in self?.step() }
    } catch {
      state.withLock { $0.threadFault = error }
    }
  }

  /// A driver dropped without `shutdown()` still leaves its line off and ends its thread.
  deinit {
    state.withLock { $0.output?.release() }
    thread?.stop()
  }

  /// Changes the state under the lock, drives the level due now (every time with `force`), and
  /// wakes the timing thread. Does nothing after `shutdown()`.
  func update(force: Bool = false, _ change: (inout State, MonotonicInstant) -> Void) {
    state.withLock { state in
      guard !state.shutDown else { return }
      let now = clock.now()
      change(&state, now)
      _ = state.output?.step(at: now, force: force)
    }
    thread?.wake()
  }

  /// Drives the level due now and returns when the next change is due (nil: nothing due).
  func step() -> MonotonicInstant? {
    state.withLock { state in
      guard !state.shutDown else { return nil }
      return state.output?.step(at: clock.now())
    }
  }

  /// Sets the final `mode`, drives the line off, releases it and ends the timing thread.
  func shutdown(mode: Mode) {
    state.withLock { state in
      state.shutDown = true
      state.mode = mode
      state.output?.release()
    }
    thread?.stop()
  }

  /// Reads the state under the lock.
  func read<Value: Sendable>(_ body: (State) -> Value) -> Value {
    state.withLock { state in
      let copy = state
      return body(copy)
    }
  }
}
