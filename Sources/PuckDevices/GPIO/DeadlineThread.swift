import Glibc
import Synchronization

/// A dedicated thread that calls `step` whenever the deadline `step` returned passes or
/// `wake()` is called, until `stop()`: how the buzzer and LED patterns run in the daemon
/// without a timer in its event loop.
///
/// Synchronisation: `Sendable` without `@unchecked`. The stop flag is an atomic; `wake()` writes
/// a byte to a pipe the thread polls with the deadline as timeout, so a wake-up is never lost
/// (the byte stays until the thread drains it). The descriptors live as long as this object,
/// and the thread holds a strong reference to it, so no write can hit a closed descriptor.
final class DeadlineThread: Sendable {
  private let stopFlag = Atomic<Bool>(false)
  private let started = Atomic<Bool>(false)
  private let exited = Atomic<Bool>(false)
  private let readEnd: Int32
  private let writeEnd: Int32

  /// Creates the wake-up pipe (nonblocking, close-on-exec).
  init() throws(GPIOError) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else {
      throw GPIOError(function: "pipe", code: errno, action: "cannot start the GPIO timing thread")
    }
    for end in ends {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    readEnd = ends[0]
    writeEnd = ends[1]
  }

  deinit {
    _ = close(readEnd)
    _ = close(writeEnd)
  }

  /// Starts the thread (once); `step` runs on it and returns the next deadline, or nil to wait
  /// for `wake()`.
  func start(_ step: @escaping @Sendable () -> MonotonicInstant?) throws(GPIOError) {
    guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
    let result = DetachedThread.start { [self] in
      while !self.stopFlag.load(ordering: .acquiring) {
        self.wait(until: step())
      }
      self.exited.store(true, ordering: .releasing)
    }
    guard result == 0 else {
      throw GPIOError(function: "pthread_create", code: result, action: "cannot start the GPIO timing thread")
    }
  }

  /// Makes the thread call `step` again now.
  func wake() {
    let byte: UInt8 = 1
    _ = withUnsafeBytes(of: byte) { write(writeEnd, $0.baseAddress, 1) }
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

  /// Polls the pipe until `deadline` (rounded up to the millisecond, so the step never runs
  /// early; at most a minute, so a lost clock cannot park the thread) and drains it.
  private func wait(until deadline: MonotonicInstant?) {
    var milliseconds: Int32 = 60_000
    if let deadline {
      let remaining = max(0, (deadline - .now()).nanoseconds)
      milliseconds = Int32(min(60_000, (remaining + 999_999) / 1_000_000))
    }
    var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
    if poll(&descriptor, 1, milliseconds) > 0 {
      var buffer = [UInt8](repeating: 0, count: 64)
      while read(readEnd, &buffer, buffer.count) > 0 {}
    }
  }
}
