import Glibc
import PuckSystem

/// Why `puckd` will not start: another daemon already answers on its control socket.
struct ControlSocketInUse: Error, CustomStringConvertible {
  let path: String

  var description: String {
    "another puckd is already listening on \(path); stop it first (sudo systemctl stop puckd) "
      + "or give this one its own --socket"
  }
}

/// Whether some process accepts connections on the Unix socket at `path`. A socket file left by
/// a crash refuses the connection (ECONNREFUSED) and may be replaced; a live one must not be,
/// or a second daemon would silently take the first one's clients (issue 8, item 12).
func controlSocketIsLive(_ path: String) -> Bool {
  guard let address = UnixSocketAddress(path) else { return false }
  let flags = Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue)
  guard let probe = try? FileDescriptor("socket", opening: { socket(AF_UNIX, flags, 0) }) else {
    return false
  }
  defer { probe.close() }
  do throws(SystemError) {
    _ = try address.withSockaddr { (pointer, length) throws(SystemError) in
      try systemCall("connect") { connect(probe.rawValue, pointer, length) }
    }
    return true
  } catch {
    // EAGAIN: the listener's backlog is full, which only a live listener has.
    return error.code == EAGAIN || error.code == EINPROGRESS
  }
}
