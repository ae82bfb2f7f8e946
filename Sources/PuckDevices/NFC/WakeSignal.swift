import Glibc

/// Lets other threads interrupt the reader thread's sleep between polls, so `setEnabled`,
/// `checkHealth` and `stop` take effect at once: a self-pipe that the sleeper `poll`s.
///
/// Synchronisation: `Sendable` without `@unchecked`. The descriptors are immutable; `write`
/// and `read` on a pipe are safe from any thread.
final class WakeSignal: Sendable {
  private let readEnd: Int32
  private let writeEnd: Int32

  /// Makes the pipe (both ends non-blocking, close-on-exec). Should the process be out of
  /// descriptors, the ends stay -1: `poll` ignores a negative descriptor, so `wait` still
  /// sleeps its timeout and only the early wake-up is lost.
  init() {
    var ends: [Int32] = [-1, -1]
    if pipe(&ends) == 0 {
      for end in ends {
        _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      }
    } else {
      ends = [-1, -1]
    }
    readEnd = ends[0]
    writeEnd = ends[1]
  }

  deinit {
    if readEnd >= 0 { close(readEnd) }
    if writeEnd >= 0 { close(writeEnd) }
  }

  /// Wakes the sleeper (or makes its next wait return at once).
  func signal() {
    var byte: UInt8 = 1
    _ = write(writeEnd, &byte, 1)
  }

  /// Sleeps until `signal` or until `timeout` passes; clears pending signals.
  func wait(_ timeout: Duration) {
    let (seconds, attoseconds) = timeout.components
    let milliseconds = Int32(clamping: max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, milliseconds) > 0 else { return }
    var drain = [UInt8](repeating: 0, count: 64)
    while read(readEnd, &drain, drain.count) > 0 {}
  }
}
