// What BackwardLineReader.swift (Sources/PuckStorage, compiled into this module by fuzz/run)
// needs from the rest of PuckStorage and PuckSystem, which are not compiled in: they import
// each other by module name and CLinux. Same shapes as FileSystemError.swift and
// PuckSystem.systemCall (EINTR retried, -1 becomes the error).

#if canImport(Glibc)
  import Glibc
#endif

struct FileSystemError: Error, CustomStringConvertible {
  var operation: String
  var path: String
  var code: Int32
  var description: String { "could not \(operation) \(path): errno \(code)" }
}

@discardableResult
func systemCall<Result: BinaryInteger>(
  _ operation: @autoclosure () -> String, path: String, _ call: () -> Result
) throws(FileSystemError) -> Result {
  while true {
    let result = call()
    if result != -1 { return result }
    if errno == EINTR { continue }
    throw FileSystemError(operation: operation(), path: path, code: errno)
  }
}
