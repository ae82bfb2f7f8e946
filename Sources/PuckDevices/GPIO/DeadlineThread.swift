import Glibc
import PuckSystem
import Synchronization

/// A dedicated thread that calls `step` whenever the deadline `step` returned passes or
/// `wake()` is called, until `stop()`: how the buzzer and LED patterns run in the daemon
/// without a timer in its event loop.
///
/// Synchronisation: `Sendable` without `@unchecked`. The stop flag is an atomic; `wake()`
/// signals an eventfd the thread polls with the deadline as timeout, so a wake-up is never lost
/// (the count stays until the thread drains it). The descriptor lives as long as this object,
/// and the thread holds a strong reference to it, so no write can hit a closed descriptor.
final class DeadlineThread: Sendable {
  private let stopFlag = Atomic<Bool>(false)
  private let started = Atomic<Bool>(false)
  private let exited = Atomic<Bool>(false)
  private let wakeup: Wakeup

  /// Creates the wake-up eventfd (nonblocking, close-on-exec).
  init() throws(GPIOError) {
    do throws(SystemError) {
      wakeup = try Wakeup()
    } catch {
      throw GPIOError(function: error.call, code: error.code, action: "cannot start the GPIO timing thread")
    }
  }

  /// Starts the thread (once); `step` runs on it and returns the next deadline, or nil to wait
  /// for `wake()`.
  func start(_ step: @escaping @Sendable () -> MonotonicInstant?) throws(GPIOError) {
    guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
    do throws(SystemError) {
      try SystemThread.detach { [self] in
        while !self.stopFlag.load(ordering: .acquiring) {
          self.wait(until: step())
        }
        self.exited.store(true, ordering: .releasing)
      }
    } catch {
      throw GPIOError(function: error.call, code: error.code, action: "cannot start the GPIO timing thread")
    }
  }

  /// Makes the thread call `step` again now.
  func wake() {
    wakeup.signal()
  }

  /// Asks the thread to end after its current step and wakes it; returns without waiting.
  func stop() {
    stopFlag.store(true, ordering: .releasing)
    wake()
  }

  /// Whether the thread has ended (or never started).
  var hasExited: Bool {
    !started.load(ordering: .acquiring) || exited.load(ordering: .acquiring)
  }

  /// Waits for a wake-up until `deadline` (rounded up to the millisecond, so the step never
  /// runs early; at most a minute, so a lost clock cannot park the thread).
  private func wait(until deadline: MonotonicInstant?) {
    let limit = Duration.seconds(60)
    wakeup.wait(deadline.map { min(limit, $0 - .now()) } ?? limit)
  }
}
