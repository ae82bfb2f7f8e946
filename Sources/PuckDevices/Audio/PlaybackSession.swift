import Glibc
import PuckSystem
import Synchronization

/// The signals between one ring's caller and its playback thread: a stop request that wakes
/// the thread from any wait, and an "exited" flag others can wait on.
///
/// Both are eventfds (`Wakeup`) that are signalled once and never drained, so they stay
/// readable: a stop request cannot be missed by a thread that starts waiting after it, and every
/// later wait returns at once. The descriptors live exactly as long as this object, so no thread
/// can write to a closed or reused descriptor; the stop flag is an atomic.
final class PlaybackSession: Sendable {
  /// What ended a wait.
  enum Wake: Equatable {
    /// `requestStop()` was called.
    case stopRequested
    /// The PCM's descriptors have events.
    case device
    /// The timeout passed.
    case timedOut
  }

  private let stopFlag = Atomic<Bool>(false)
  private let framesWritten = Atomic<Int>(0)
  private let threadCPUNanoseconds = Atomic<Int64>(-1)
  // One-shot flags: signalled once and never drained, so they stay readable for good.
  private let wake: Wakeup
  private let exited: Wakeup

  /// Creates the two eventfds; throws an `ALSAError` naming `eventfd` when the process is out
  /// of descriptors.
  init() throws(ALSAError) {
    do throws(SystemError) {
      wake = try Wakeup()
      exited = try Wakeup()
    } catch {
      throw ALSAError(code: -error.code, function: error.call)
    }
  }

  /// Whether `requestStop()` was called.
  var isStopRequested: Bool { stopFlag.load(ordering: .acquiring) }

  /// Asks the playback thread to stop, waking it from any wait.
  func requestStop() {
    stopFlag.store(true, ordering: .releasing)
    wake.signal()
  }

  /// Called by the playback thread as its last act: records the CPU time the thread used
  /// (`CLOCK_THREAD_CPUTIME_ID`, read on that thread, the only place it can be read from), so
  /// a ring that burns a core is visible, then signals the exit.
  func markExited() {
    var spent = timespec()
    if clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spent) == 0 {
      threadCPUNanoseconds.store(
        Int64(spent.tv_sec) * 1_000_000_000 + Int64(spent.tv_nsec), ordering: .releasing)
    }
    exited.signal()
  }

  /// Called by the playback thread for every write the device took.
  func countWritten(frames: Int) {
    framesWritten.add(frames, ordering: .relaxed)
  }

  /// What the ring cost so far: frames the devices took and, once the thread has exited, the
  /// CPU time it used.
  var statistics: RingStatistics {
    let nanoseconds = threadCPUNanoseconds.load(ordering: .acquiring)
    return RingStatistics(
      framesWritten: framesWritten.load(ordering: .relaxed),
      threadCPUTime: nanoseconds < 0 ? nil : .nanoseconds(nanoseconds))
  }

  /// Waits until the playback thread has exited or `timeout` passed; true if it exited.
  func waitUntilExited(timeout: Duration) -> Bool {
    var descriptors = [pollfd(fd: exited.fd, events: Int16(POLLIN), revents: 0)]
    return Self.poll(&descriptors, timeout: timeout) == .device
  }

  /// Sleeps for `duration` unless a stop is requested; true if it was.
  func sleep(for duration: Duration) -> Bool {
    var none: [pollfd] = []
    let deadline = MonotonicInstant.now() + duration
    while true {
      switch wait(on: &none, timeout: deadline - MonotonicInstant.now()) {
      case .stopRequested: return true
      case .timedOut: return false
      case .device: continue
      }
    }
  }

  /// Waits for events on `descriptors` (a PCM's), a stop request, or `timeout`. On `.device`,
  /// `descriptors` carry the returned events.
  func wait(on descriptors: inout [pollfd], timeout: Duration) -> Wake {
    if isStopRequested { return .stopRequested }
    var all = descriptors + [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
    let wake = Self.poll(&all, timeout: timeout)
    if isStopRequested { return .stopRequested }
    descriptors = Array(all.dropLast())
    return wake
  }

  /// `poll` with a `Duration` (rounded up to milliseconds); `.device` when any descriptor has
  /// events. An interrupted poll counts as an event, so callers re-check their state.
  private static func poll(_ descriptors: inout [pollfd], timeout: Duration) -> Wake {
    let milliseconds = min(timeout, .seconds(60)).pollMilliseconds
    let ready = Glibc.poll(&descriptors, nfds_t(descriptors.count), milliseconds)
    return ready == 0 ? .timedOut : .device
  }

}

/// What one ring cost: a ring that runs ahead of real time shows as far more frames than
/// seconds × rate, and a spinning thread as CPU time close to the wall-clock time.
struct RingStatistics: Equatable {
  /// Frames the device(s) took during the ring.
  var framesWritten: Int
  /// CPU time the ring's thread used, once it has exited.
  var threadCPUTime: Duration?
}
