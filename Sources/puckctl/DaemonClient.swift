import Glibc
import PuckCore

/// Why talking to the daemon failed before it could answer.
enum ClientError: Error {
  /// No daemon listening at the socket path.
  case notRunning(path: String)
  /// The socket exists but we may not connect to it.
  case noAccess(path: String)
  /// The connection broke or the reply was unreadable.
  case broken(String)
}

/// One request to `puckd` over its control socket, with its progress lines and final reply.
struct DaemonClient {
  let socketPath: String

  /// Sends `command`, calls `progress` for each progress line, and returns the final reply.
  func send(_ command: ControlCommand, progress: (String) -> Void = { _ in }) throws -> ControlReply {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw ClientError.broken("socket: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let path = Array(socketPath.utf8)
    guard path.count < MemoryLayout.size(ofValue: addr.sun_path) else {
      throw ClientError.notRunning(path: socketPath)
    }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
      for (index, byte) in path.enumerated() { raw[index] = byte }
    }
    let connected = withUnsafePointer(to: &addr) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    if connected != 0 {
      switch errno {
      case EACCES, EPERM: throw ClientError.noAccess(path: socketPath)
      default: throw ClientError.notRunning(path: socketPath)
      }
    }
    let request = ControlWire.encode(command) + [UInt8(ascii: "\n")]
    var offset = 0
    while offset < request.count {
      let written = request[offset...].withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if written < 0 {
        if errno == EINTR { continue }
        throw ClientError.broken("puckd closed the connection")
      }
      offset += written
    }
    var buffer: [UInt8] = []
    var scanned = 0  // bytes of `buffer` already searched for a newline
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      while let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
        let reply = try ControlWire.decodeReply(buffer[..<newline])
        buffer.removeSubrange(...newline)
        scanned = 0
        if reply.ok != nil { return reply }
        if let text = reply.progress { progress(text) }
      }
      scanned = buffer.count
      let count = read(fd, &chunk, chunk.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { throw ClientError.broken("puckd closed the connection without answering") }
      buffer += chunk[0..<count]
    }
  }
}
