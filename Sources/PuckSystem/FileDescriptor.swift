import Glibc
import Synchronization

/// An open file descriptor and the duty to close it, exactly once: swift-system's
/// `FileDescriptor` with ownership added. What opens a descriptor (a socket, a timerfd, a file
/// being read) wraps the number at once, and nothing but this type calls `close(2)` (except
/// `SoundFile`, which the fuzz build compiles without PuckSystem).
///
/// Owning and borrowing: a type that keeps a descriptor holds its `FileDescriptor`, and a
/// function that takes one over (the control server admitting a connection) takes a
/// `FileDescriptor`. Code that only uses a descriptor for the length of a call (`poll`,
/// `writeAll(_:to:)`, `EventLoop.watch`) borrows it as the raw `Int32`, `rawValue`, as the C
/// calls do; the owner keeps it open until the borrow ends (a loop watch ends with `unwatch`,
/// before the owner closes). Swift may release an object after its last use rather than at the
/// end of its scope, so a local owner closes with `defer { file.close() }`: that both keeps it
/// alive for every borrow above and says when it is closed.
///
/// Closing: `close()` closes now and may be called again, from any thread; the number is
/// swapped out atomically, so a second call never closes a number the kernel has since handed
/// to another file. A descriptor still open when the last reference goes is closed by `deinit`.
/// Once closed, `rawValue` is -1: a late call fails with `EBADF` instead of reaching whatever
/// file now has the old number.
///
/// Synchronisation: `Sendable` without `@unchecked`; the number is an atomic.
public final class FileDescriptor: Sendable {
  private let raw: Atomic<Int32>

  /// Takes ownership of `rawValue`, an open descriptor that nothing else will close. A
  /// negative value is owned as already closed.
  public init(_ rawValue: Int32) {
    raw = Atomic(max(rawValue, -1))
  }

  /// Runs `open`, a call that returns a new descriptor or -1 with `errno` set (`socket`,
  /// `open`, `eventfd`), through `systemCall`, and owns the descriptor it returns.
  public convenience init(_ name: @autoclosure () -> String, opening open: () -> Int32) throws(SystemError) {
    self.init(try systemCall(name(), open))
  }

  deinit {
    close()
  }

  /// The descriptor for a C call, -1 once closed.
  public var rawValue: Int32 {
    raw.load(ordering: .acquiring)
  }

  /// Whether it is still open (not yet closed through this value).
  public var isOpen: Bool {
    rawValue >= 0
  }

  /// Closes the descriptor (`close(2)`); does nothing if it is closed already.
  public func close() {
    let number = raw.exchange(-1, ordering: .acquiringAndReleasing)
    guard number >= 0 else { return }
    // Not retried on EINTR, and its result not reported: Linux frees the number whatever
    // close returns, so a retry could close a descriptor another thread has just been given,
    // and there is nothing left to do about a failure.
    _ = Glibc.close(number)
  }
}
