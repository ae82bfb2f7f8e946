import Glibc
import PuckSystem

extension FileDescriptor {
  /// Opens `path` (`open(2)` with `flags`, and `mode` for a file it creates) and owns the
  /// descriptor; a failure is told as a `FileSystemError` for `operation` on `path`.
  static func open(_ path: String, _ flags: Int32, mode: mode_t = 0, operation: String = "open")
    throws(FileSystemError) -> FileDescriptor
  {
    FileDescriptor(try systemCall(operation, path: path) { Glibc.open(path, flags, mode) })
  }
}
