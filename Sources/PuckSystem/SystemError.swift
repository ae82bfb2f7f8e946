import Glibc

/// A failed system call: its name and `errno`.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The C function that failed (`timerfd_settime`).
  public let call: String
  /// The `errno` it left.
  public let code: Int32

  /// Records `code` (by default the current `errno`) for `call`.
  public init(_ call: String, code: Int32 = errno) {
    self.call = call
    self.code = code
  }

  /// The C library's text for `code` (`No such file or directory`).
  public var systemMessage: String {
    String(cString: strerror(code))
  }

  /// `timerfd_settime: Invalid argument`.
  public var description: String {
    "\(call): \(systemMessage)"
  }
}

/// Runs a call that returns -1 and sets `errno` on failure, retrying `EINTR` (a signal
/// arriving mid-call is not a failure), as swift-system's `valueOrErrno(retryOnInterrupt:)`
/// and swift-nio's `syscall()` do. Every errno-returning call in the program goes through here
/// (or its siblings below, which share the one loop), so the retry rule lives in one place;
/// callers that need their own error type (a path, a device) catch the `SystemError` and wrap
/// its `code`.
@discardableResult
public func systemCall<Result: BinaryInteger>(
  _ name: @autoclosure () -> String, _ body: () -> Result
) throws(SystemError) -> Result {
  try systemCall(name(), failsWhen: { $0 == -1 }, body)
}

/// The funnel for calls whose failure is a value other than -1 (libgpiod's negative returns):
/// `failed` says which results are failures. `errno` is cleared before each try, since some
/// C libraries fail without setting it; such a failure is reported as `EIO`.
public func systemCall<Value>(
  _ name: @autoclosure () -> String, failsWhen failed: (Value) -> Bool, _ body: () -> Value
) throws(SystemError) -> Value {
  while true {
    errno = 0
    let value = body()
    guard failed(value) else { return value }
    let code = errno
    if code == EINTR { continue }
    throw SystemError(name(), code: code == 0 ? EIO : code)
  }
}

/// The funnel for calls that return the error number itself, 0 on success, and leave `errno`
/// alone (`clock_nanosleep`, the `pthread_` calls); `EINTR` is retried in the same loop. Its
/// own name, since a trailing closure would also match `systemCall`'s argument label.
public func systemCallReturningError(_ name: @autoclosure () -> String, _ body: () -> Int32)
  throws(SystemError)
{
  _ = try systemCall(name(), failsWhen: { $0 != 0 }) { () -> Int32 in
    let code = body()
    errno = code
    return code
  }
}

/// The funnel for calls that return NULL and set `errno` on failure (libgpiod's constructors).
public func systemCall<Pointee>(
  _ name: @autoclosure () -> String, returningPointer body: () -> Pointee?
) throws(SystemError) -> Pointee {
  let value = try systemCall(name(), failsWhen: { $0 == nil }, body)
  // Never nil here: nil is the failure the funnel threw for.
  guard let value else { throw SystemError(name(), code: EIO) }
  return value
}
