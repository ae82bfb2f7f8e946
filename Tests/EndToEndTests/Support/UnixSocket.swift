import Glibc

/// Opens a Unix socket of `type` and connects (or binds) it to `path`; -1 on failure.
func unixSocket(
  _ type: __socket_type, path: String, bind shouldBind: Bool = false, nonblocking: Bool = false
) -> Int32 {
  // Close-on-exec: a socket that leaked into a daemon another test starts meanwhile would
  // outlive its close here (see `CapturedOutput`).
  let flags = Int32(type.rawValue | SOCK_CLOEXEC.rawValue) | (nonblocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
  let fd = socket(AF_UNIX, flags, 0)
  var addr = sockaddr_un()
  addr.sun_family = sa_family_t(AF_UNIX)
  withUnsafeMutableBytes(of: &addr.sun_path) { raw in
    for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
  }
  let result = withUnsafePointer(to: &addr) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
      let length = socklen_t(MemoryLayout<sockaddr_un>.size)
      return shouldBind ? bind(fd, address, length) : connect(fd, address, length)
    }
  }
  if result != 0 {
    close(fd)
    return -1
  }
  return fd
}
