import CLinux
import Glibc

/// One way for any thread to wake a thread that sleeps in `poll`/`epoll_wait`: a non-blocking,
/// close-on-exec eventfd. `signal()` adds one to its counter (readable), `drain()` clears it,
/// `wait(_:)` sleeps until a signal or a timeout. Replaces the self-pipes and the loop's eventfd
/// that were each written by hand.
///
/// Synchronisation: `Sendable` without `@unchecked`. The descriptor is owned for this object's
/// whole life; `write` and `read` on an eventfd are atomic from any thread.
public final class Wakeup: Sendable {
  private let descriptor: FileDescriptor

  /// The descriptor to watch for readability (borrowed); -1 if none could be made (see
  /// `bestEffort()`).
  public var fd: Int32 { descriptor.rawValue }

  private init(_ descriptor: FileDescriptor) {
    self.descriptor = descriptor
  }

  /// Makes the eventfd, or throws the `eventfd` failure.
  public convenience init() throws(SystemError) {
    self.init(try Self.makeDescriptor())
  }

  /// Makes the eventfd; should the process be out of descriptors, `fd` stays -1: `poll`
  /// ignores a negative descriptor, so `wait` still sleeps its timeout and only the early
  /// wake-up is lost. For sleepers that must not fail to start.
  public static func bestEffort() -> Wakeup {
    Wakeup((try? makeDescriptor()) ?? FileDescriptor(-1))
  }

  private static func makeDescriptor() throws(SystemError) -> FileDescriptor {
    try FileDescriptor("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
  }

  /// Closes the eventfd now; later signals and waits do nothing (`fd` is -1).
  public func close() {
    descriptor.close()
  }

  /// Wakes the sleeper (or makes its next wait return at once).
  public func signal() {
    var one: UInt64 = 1
    // Fails only when the counter would overflow (it is then readable anyway) or fd is -1.
    _ = try? systemCall("write") { write(fd, &one, 8) }
  }

  /// Clears pending signals; returns whether there were any.
  @discardableResult
  public func drain() -> Bool {
    var counter: UInt64 = 0
    return ((try? systemCall("read") { read(fd, &counter, 8) }) ?? 0) == 8
  }

  /// Sleeps until `signal` or until `timeout` passes (rounded up to a millisecond; nil: no
  /// timeout); clears pending signals. Returns whether it was signalled.
  @discardableResult
  public func wait(_ timeout: Duration?) -> Bool {
    var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let milliseconds = timeout?.pollMilliseconds ?? -1
    guard (try? systemCall("poll") { poll(&descriptor, 1, milliseconds) }) ?? 0 > 0 else {
      return false
    }
    return drain()
  }
}
