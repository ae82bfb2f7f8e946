import Glibc
import PuckCore
import PuckSystem
import Synchronization

/// What the reader's thread and the rest of the program share: the requests going in
/// (enabled, health check, stop), the heartbeat and health coming out, and the event handler.
///
/// Synchronisation: `Sendable` without `@unchecked`: the state is in a `Mutex`, the handler is
/// `@Sendable`, the wake signal is an eventfd (`Wakeup`). Events are emitted outside the lock.
final class ReaderControl: Sendable {
  private let state: Mutex<State>
  // Inert rather than throwing when out of descriptors: the sleep still ends on its timeout.
  private let wake = Wakeup.bestEffort()
  private let onEvent: @Sendable (TagReaderEvent) -> Void

  struct State: Sendable {
    var enabled = false
    /// Counts enablings, so a disable and re-enable between two polls still starts a new
    /// presence baseline.
    var enableGeneration = 0
    var healthRequested = false
    var stopRequested = false
    var started = false
    var running = false
    var heartbeat = MonotonicInstant.now()
    /// The libnfc call in progress, for the watchdog's report.
    var currentCall: String?
    var health = DeviceCondition(.fault, "the reader has not been opened yet")
    var stallReported = false
  }

  /// What the thread is asked to do, read once per iteration.
  struct Requests: Sendable {
    var enabled: Bool
    var enableGeneration: Int
    var healthRequested: Bool
    var stopRequested: Bool
  }

  init(onEvent: @escaping @Sendable (TagReaderEvent) -> Void) {
    state = Mutex(State())
    self.onEvent = onEvent
  }

  // MARK: - From the owner

  /// Marks the reader started; false if it already was.
  func markStarted() -> Bool {
    state.withLock { state in
      guard !state.started else { return false }
      state.started = true
      state.running = true
      state.heartbeat = .now()
      return true
    }
  }

  func setEnabled(_ enabled: Bool) {
    state.withLock { state in
      if enabled && !state.enabled { state.enableGeneration += 1 }
      state.enabled = enabled
    }
    wake.signal()
  }

  var isEnabled: Bool {
    state.withLock { $0.enabled }
  }

  func requestHealth() {
    state.withLock { $0.healthRequested = true }
    wake.signal()
  }

  var health: DeviceCondition {
    state.withLock { $0.health }
  }

  func stop(waitingUpTo limit: Duration) {
    requestStop()
    _ = waitUntilFinished(timeout: limit)
  }

  /// Asks the thread to stop and returns at once.
  func requestStop() {
    state.withLock { $0.stopRequested = true }
    wake.signal()
  }

  /// Waits until the thread has ended or `limit` passed; true when it has ended (or never
  /// ran). Blocks the caller: never call it on the daemon's loop thread.
  func waitUntilFinished(timeout limit: Duration) -> Bool {
    let deadline = MonotonicInstant.now() + limit
    while state.withLock({ $0.running }) {
      guard MonotonicInstant.now() < deadline else { return false }
      var interval = timespec(tv_sec: 0, tv_nsec: 5_000_000)
      nanosleep(&interval, nil)
    }
    return true
  }

  func checkProgress(at now: MonotonicInstant, limit: Duration, connstring: String?)
    -> DeviceCondition?
  {
    let (stalled, isNew) = state.withLock { state -> (DeviceCondition?, Bool) in
      guard state.running, !state.stopRequested else { return (nil, false) }
      let silence = now - state.heartbeat
      guard silence > limit else { return (nil, false) }
      let location = state.currentCall.map { "inside \($0)" } ?? "in its poll loop"
      let health = DeviceCondition(
        .fault,
        "the reader's thread has been stuck \(location) for \(silence.components.seconds) s on "
          + "\(connstring ?? "libnfc's default device"): libnfc is waiting on a reader that stopped "
          + "answering — check its power and wiring; restarting puckd frees it")
      let isNew = !state.stallReported
      state.stallReported = true
      state.health = health
      return (health, isNew)
    }
    if let stalled, isNew { onEvent(.health(stalled)) }
    return stalled
  }

  // MARK: - From the reader's thread

  /// Takes this iteration's requests (clearing a health request) and beats the heart. A stall
  /// the watchdog reported counts as a health request, so recovery is announced.
  func beginIteration() -> Requests {
    state.withLock { state in
      defer { state.healthRequested = false }
      state.heartbeat = .now()
      state.currentCall = nil
      return Requests(
        enabled: state.enabled, enableGeneration: state.enableGeneration,
        healthRequested: state.healthRequested || state.stallReported, stopRequested: state.stopRequested)
    }
  }

  /// Runs a libnfc call, recording it and beating the heart before and after, so the watchdog
  /// measures the time spent inside it.
  func during<Value, Failure: Error>(_ call: String, _ body: () throws(Failure) -> Value) throws(Failure)
    -> Value
  {
    state.withLock { state in
      state.heartbeat = .now()
      state.currentCall = call
    }
    defer {
      state.withLock { state in
        state.heartbeat = .now()
        state.currentCall = nil
      }
    }
    return try body()
  }

  /// Records `health` and emits it when it changed, when `force`d (an answer to
  /// `checkHealth`), or after a stall was reported (so recovery is announced).
  func report(_ health: DeviceCondition, force: Bool) {
    let emit = state.withLock { state in
      let emit = force || state.stallReported || state.health != health
      state.health = health
      state.stallReported = false
      return emit
    }
    if emit { onEvent(.health(health)) }
  }

  func emit(_ event: TagReaderEvent) {
    onEvent(event)
  }

  /// Sleeps up to `timeout`, or until a request arrives.
  func wait(_ timeout: Duration) {
    wake.wait(timeout)
  }

  /// The thread has ended.
  func finish() {
    state.withLock { $0.running = false }
  }
}
