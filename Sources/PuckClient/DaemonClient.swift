import Glibc
import PuckCore
import PuckSystem

/// Why talking to the daemon failed before it could answer.
public enum ClientError: Error {
  /// No daemon listening at the socket path.
  case notRunning(path: String)
  /// The socket exists but we may not connect to it.
  case noAccess(path: String)
  /// The connection broke or the reply was unreadable.
  case broken(String)
}

/// One request to `puckd` over its control socket, with its progress lines and final reply.
/// Shared by every client of the socket: `puckctl` and `puck-web`.
public struct DaemonClient: Sendable {
  public let socketPath: String
  /// How long one read or write may wait before the request is given up; nil waits as long as
  /// puckd takes (`puckctl pair` waits for a tag). `puck-web` sets it: one of its pages must
  /// never hang on a daemon that stopped answering.
  public let timeout: Duration?

  public init(socketPath: String, timeout: Duration? = nil) {
    self.socketPath = socketPath
    self.timeout = timeout
  }

  /// Sends `command`, calls `progress` for each progress line, and returns the final reply.
  public func send(_ command: ControlRequest, progress: (String) -> Void = { _ in }) throws -> ControlReply {
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
    if let timeout { try limitWaits(of: fd, to: timeout) }
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
      let count: Int
      do throws(SystemError) {
        count = try systemCall("read") { read(fd, &chunk, chunk.count) }
      } catch  where error.code == EAGAIN || error.code == EWOULDBLOCK {
        throw ClientError.broken("puckd did not answer in time")
      } catch {
        count = -1
      }
      guard count > 0 else {
        throw ClientError.broken(
          requestLost ? "puckd closed the connection" : "puckd closed the connection without answering")
      }
      buffer += chunk[0..<count]
    }
  }

  /// Bounds every blocking read and write on `fd` (`SO_RCVTIMEO`, `SO_SNDTIMEO`).
  private func limitWaits(of fd: Int32, to timeout: Duration) throws {
    let (seconds, attoseconds) = timeout.components
    var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
      do throws(SystemError) {
        try systemCall("setsockopt") {
          setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
        }
      } catch {
        throw ClientError.broken("\(error)")
      }
    }
  }
}
