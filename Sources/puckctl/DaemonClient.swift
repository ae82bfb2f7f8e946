import Glibc
import PuckCore
import PuckSystem

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
  func send(_ command: ControlRequest, progress: (String) -> Void = { _ in }) throws -> ControlReply {
    let connection: FileDescriptor
    do throws(SystemError) {
      connection = try FileDescriptor("socket") {
        socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
      }
    } catch {
      throw ClientError.broken("\(error)")
    }
    defer { connection.close() }
    let fd = connection.rawValue
    guard let address = UnixSocketAddress(socketPath) else { throw ClientError.notRunning(path: socketPath) }
    do throws(SystemError) {
      _ = try address.withSockaddr { (pointer, length) throws(SystemError) in
        try systemCall("connect") { connect(fd, pointer, length) }
      }
    } catch {
      switch error.code {
      case EACCES, EPERM: throw ClientError.noAccess(path: socketPath)
      default: throw ClientError.notRunning(path: socketPath)
      }
    }
    // A daemon that refuses the connection (every slot taken) answers and closes at once, maybe
    // before the request is written: the send then fails, but the refusal waits to be read.
    var requestLost = false
    do throws(SystemError) {
      try sendAll(ControlWire.encode(command) + [UInt8(ascii: "\n")], to: fd)
    } catch {
      requestLost = true
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
      let count = (try? systemCall("read") { read(fd, &chunk, chunk.count) }) ?? -1
      guard count > 0 else {
        throw ClientError.broken(
          requestLost ? "puckd closed the connection" : "puckd closed the connection without answering")
      }
      buffer += chunk[0..<count]
    }
  }
}
