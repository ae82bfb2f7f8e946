import Glibc

/// A failed system call: its name and `errno`.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The C function that failed (`timerfd_settime`).
  public let call: String
  /// The `errno` it left.
  public let code: Int32

  public init(_ call: String, code: Int32 = errno) {
    self.call = call
    self.code = code
  }

  public var description: String {
    "\(call): \(String(cString: strerror(code)))"
  }
}

/// Runs a system call, retrying on `EINTR`, and turns `-1` into a `SystemError` naming it.
/// Every raw syscall in the daemon goes through here.
@discardableResult
func systemCall<Result: BinaryInteger>(_ name: String, _ body: () -> Result) throws(SystemError) -> Result {
  while true {
    let result = body()
    if result == -1 {
      let code = errno
      if code == EINTR { continue }
      throw SystemError(name, code: code)
    }
    return result
  }
}
