import Glibc

/// Creates the directory `path` is in and its missing parents with `mode` (`mkdir -p`); those
/// that exist are left as they are.
public func makeParentDirectories(of path: String, mode: mode_t = 0o755) throws(SystemError) {
  var directory = path.hasPrefix("/") ? "" : "."
  for component in path.split(separator: "/").dropLast() {
    directory += "/" + component
    do throws(SystemError) {
      try systemCall("mkdir \(directory)") { mkdir(directory, mode) }
    } catch {
      if error.code != EEXIST { throw error }
    }
  }
}
