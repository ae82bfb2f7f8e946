import Glibc
import PuckSystem

/// The checking functions every libgpiod call in `GPIOLineRequest.swift` goes through: a failure
/// becomes a `GPIOError` with the function's name, `errno` and what was being done.
extension GPIOLineRequest {
  /// A handle that `release()` may have cleared, or `EBADF` from `function`.
  static func open(_ handle: OpaquePointer?, _ function: String, _ action: String)
    throws(GPIOError) -> OpaquePointer
  {
    guard let handle else { throw GPIOError(function: function, code: EBADF, action: action) }
    return handle
  }

  /// The one checking function for calls returning a number: a negative result becomes a
  /// `GPIOError` with `function`, `errno` and `action`; an interrupted call is retried.
  @discardableResult
  static func call<Result: BinaryInteger>(
    _ function: String, _ action: @autoclosure () -> String, _ body: () -> Result
  ) throws(GPIOError) -> Result {
    do throws(SystemError) {
      return try systemCall(function, failsWhen: { $0 < 0 }, body)
    } catch {
      throw GPIOError(function: function, code: error.code, action: action())
    }
  }

  /// The one checking function for calls returning a pointer: NULL becomes a `GPIOError` with
  /// `function`, `errno` and `action`; an interrupted call is retried.
  static func call(
    _ function: String, _ action: @autoclosure () -> String, _ body: () -> OpaquePointer?
  ) throws(GPIOError) -> OpaquePointer {
    do throws(SystemError) {
      return try systemCall(function, returningPointer: body)
    } catch {
      throw GPIOError(function: function, code: error.code, action: action())
    }
  }
}
