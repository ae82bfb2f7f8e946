import Glibc
import PuckCore
import PuckSystem

/// One accepted control connection: its request line as it arrives, and the reply bytes
/// waiting for the peer to read them. The server decides when to read, write and drop it; the
/// client owns its buffers.
final class ControlClient {
  /// What the bytes read so far make.
  enum Arrival {
    /// No whole line yet.
    case waiting
    /// The request line, without its newline.
    case line(ArraySlice<UInt8>)
    /// Over the limit without a newline.
    case oversized
    /// A request is in already: later bytes are only read to notice a hang-up, and discarded.
    case ignored
  }

  /// The connection's key in the server's table: unlike the fd number, never reused.
  let id: UInt64
  /// The socket, owned here and closed by the server when it drops the connection.
  let connection: FileDescriptor
  let peer: PeerCredentials
  /// Root or the `puckalarm` group, decided once at accept.
  let isPrivileged: Bool
  /// The request deadline until the request is in, then the progress deadline of a reply
  /// waiting for the peer to read.
  let deadline: TimerHandle
  /// The request line as it arrives.
  private var request: [UInt8] = []
  /// Set once the request line (or an oversized one) is in: one request per connection.
  private(set) var hasRequest = false
  /// Reply bytes not yet written; `outbox[..<sent]` are written already.
  private var outbox: [UInt8] = []
  private var sent = 0
  /// A final reply is queued: the connection closes once it is written.
  private(set) var closesAfterFlush = false
  private weak var server: ControlServer?

  init(
    id: UInt64, connection: FileDescriptor, peer: PeerCredentials, isPrivileged: Bool, server: ControlServer,
    deadline: TimerHandle
  ) {
    self.id = id
    self.connection = connection
    self.peer = peer
    self.isPrivileged = isPrivileged
    self.server = server
    self.deadline = deadline
  }

  /// Sends one reply line; a final reply (`ok` set) closes the connection once written.
  /// Does nothing once the connection is closed.
  func send(_ reply: ControlReply) {
    server?.send(reply, to: self)
  }

  /// The socket's number, for the loop to watch (borrowed).
  var fd: Int32 { connection.rawValue }

  /// Whether the connection has gone away.
  var isClosed: Bool { server == nil }

  /// Reply bytes queued and not yet written.
  var pendingBytes: Int { outbox.count - sent }

  /// Takes bytes read from the peer.
  func received(_ bytes: ArraySlice<UInt8>, limit: Int) -> Arrival {
    guard !hasRequest else { return .ignored }
    request += bytes
    if let newline = request.firstIndex(of: UInt8(ascii: "\n")) {
      let line = request[..<newline]
      request = []
      hasRequest = true
      return .line(line)
    }
    guard request.count > limit else { return .waiting }
    request = []
    hasRequest = true
    return .oversized
  }

  /// Queues a reply line (`final`: the connection closes once it is written).
  func queue(_ line: [UInt8], final: Bool) {
    if sent == outbox.count {
      outbox = []
      sent = 0
    }
    outbox += line
    if final { closesAfterFlush = true }
  }

  /// Writes as much of the queued reply as the socket takes without blocking; returns the
  /// bytes written (also when it then throws: `EAGAIN` means the socket is full).
  func write() -> (written: Int, error: SystemError?) {
    var written = 0
    do throws(SystemError) {
      // withUnsafeBytes is untyped-rethrows: carry the typed error out in a Result.
      try outbox[sent...].withUnsafeBytes { raw in
        Result { () throws(SystemError) in
          try writeAll(raw, name: "send") { rest in
            let count = Glibc.send(fd, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL))
            if count > 0 { written += count }
            return count
          }
        }
      }.get()
    } catch {
      sent += written
      return (written, error)
    }
    outbox = []
    sent = 0
    return (written, nil)
  }

  /// Forgets the queued reply and the server (the connection is closing); returns the bytes
  /// that were still waiting.
  func detach() -> Int {
    let pending = pendingBytes
    outbox = []
    sent = 0
    server = nil
    return pending
  }

  /// Answers a connection that gets no slot with one short line, if its socket takes it at once,
  /// and closes it.
  static func refuse(_ connection: FileDescriptor, _ failure: ControlFailure) {
    let line = ControlWire.encode(.failure(failure)) + [UInt8(ascii: "\n")]
    // One try only (MSG_DONTWAIT): a refused client gets no buffer and no wait.
    _ = line.withUnsafeBytes { raw in
      try? systemCall("send") {
        Glibc.send(connection.rawValue, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
      }
    }
    connection.close()
  }
}
