import Glibc
import PuckSystem

/// A failed system call on a file: which call, on which path, and the `errno` it set.
///
/// `could not rename /var/lib/puckalarm/.alarms.json.tmp-… to /var/lib/puckalarm/alarms.json:
/// No space left on device (errno 28)`.
public struct FileSystemError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What was being done, as a verb phrase (`open`, `rename … to …`).
  public var operation: String
  /// The path it was done on.
  public var path: String
  /// The `errno` value.
  public var code: Int32

  /// The C library's text for `code` (`No such file or directory`).
  public var systemMessage: String { SystemError(operation, code: code).systemMessage }

  /// `could not open /var/lib/puckalarm/alarms.json: Permission denied (errno 13)`.
  public var description: String {
    "could not \(operation) \(path): \(systemMessage) (errno \(code))"
  }
}

/// PuckSystem's `systemCall` (which retries `EINTR`) with its failure told as a
/// `FileSystemError` on `path`, the error storage's callers and messages are written for.
@discardableResult
func systemCall<Result: BinaryInteger>(
  _ operation: @autoclosure () -> String, path: String, _ call: () -> Result
) throws(FileSystemError) -> Result {
  do throws(SystemError) {
    return try PuckSystem.systemCall(operation(), call)
  } catch {
    throw FileSystemError(operation: operation(), path: path, code: error.code)
  }
}
