import Glibc

/// Creates `directory` and its missing parents with `mode` (`mkdir -p`); one that exists is
/// left as it is.
public func makeDirectories(_ directory: String, mode: mode_t = 0o755) throws(SystemError) {
  var path = directory.hasPrefix("/") ? "" : "."
  for component in directory.split(separator: "/") {
    path += "/" + component
    do throws(SystemError) {
      try systemCall("mkdir \(path)") { mkdir(path, mode) }
    } catch {
      if error.code != EEXIST { throw error }
    }
  }
}
