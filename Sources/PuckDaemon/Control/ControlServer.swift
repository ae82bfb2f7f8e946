import CLinux
import Glibc
import PuckCore

/// The peer on the other end of a control connection, from `SO_PEERCRED` / `SO_PEERGROUPS`.
struct PeerCredentials {
  var pid: Int32
  var uid: UInt32
  var gid: UInt32
  var groups: [UInt32]
}

/// The control socket (PRODUCT §6): a Unix stream socket speaking line-delimited JSON.
///
/// Every client is non-blocking and lives on the event loop: a request line over 64 KiB, bytes
/// that are not a request, and a client that connects and sends nothing within a few seconds are
/// answered with an error or dropped, and never hold up the loop (or a ring).
final class ControlServer {
  /// One accepted connection.
  final class Client {
    let fd: Int32
    let peer: PeerCredentials
    fileprivate var buffer: [UInt8] = []
    fileprivate var outbox: [UInt8] = []
    fileprivate let idleTimer: Timer
    /// Set while a long request (pairing) holds the connection open.
    var isBusy = false
    fileprivate var closeAfterFlush = false
    fileprivate weak var server: ControlServer?

    fileprivate init(fd: Int32, peer: PeerCredentials, server: ControlServer) throws(SystemError) {
      self.fd = fd
      self.peer = peer
      self.server = server
      idleTimer = try Timer(.monotonic)
    }

    /// Sends one reply line; a final reply (`ok` set) closes the connection once written.
    func send(_ reply: ControlReply) {
      outbox += ControlWire.encode(reply) + [UInt8(ascii: "\n")]
      if reply.ok != nil { closeAfterFlush = true }
      server?.flush(self)
    }

    /// Whether the connection has gone away.
    var isClosed: Bool { server == nil }
  }

  /// How long a client may take to send its request line.
  static let requestTimeout: Duration = .seconds(5)

  let path: String
  private let listener: Int32
  private let loop: EventLoop
  private var clients: [Int32: Client] = [:]
  private var isAccepting = true
  /// Re-enables accepting after a pause.
  private let resumeTimer: Timer
  private let onRequest: (Client, Result<ControlCommand, ControlFailure>) -> Void

  /// Binds and listens on `path` (replacing a stale socket file), mode 0666: who may do what is
  /// decided per request from the peer's credentials, not by the file mode.
  init(
    path: String, loop: EventLoop,
    onRequest: @escaping (Client, Result<ControlCommand, ControlFailure>) -> Void
  ) throws(SystemError) {
    self.path = path
    self.loop = loop
    self.onRequest = onRequest
    resumeTimer = try Timer(.monotonic)
    listener = try systemCall("socket") {
      socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
    }
    guard let address = UnixSocketAddress(path) else {
      close(listener)
      throw SystemError("bind", code: ENAMETOOLONG)
    }
    unlink(path)
    do {
      try address.withSockaddr { (pointer, length) throws(SystemError) in
        _ = try systemCall("bind") { bind(listener, pointer, length) }
      }
      chmod(path, 0o666)
      try systemCall("listen") { listen(listener, 16) }
      try loop.watch(listener) { [unowned self] _ in self.acceptAll() }
      try loop.watch(resumeTimer.fd) { [unowned self] _ in
        guard self.resumeTimer.acknowledge() != nil else { return }
        self.resumeAccepting()
        if !self.isAccepting { try? self.resumeTimer.arm(after: .seconds(1)) }
      }
    } catch {
      close(listener)
      throw error
    }
  }

  /// Closes every connection and removes the socket file.
  func shutdown() {
    for client in clients.values { drop(client) }
    loop.unwatch(resumeTimer.fd)
    loop.unwatch(listener)
    close(listener)
    unlink(path)
  }

  /// At most this many connections at once; more wait in the listen backlog. Without a cap, a
  /// local user opening connections in a loop could use up the daemon's file descriptors, which
  /// the ring, the state files and the timers need too.
  static let maxClients = 64

  /// Stops accepting for a while (too many clients, or out of file descriptors); accepting
  /// resumes when a client leaves or after a second.
  private func pauseAccepting() {
    guard isAccepting else { return }
    isAccepting = false
    loop.unwatch(listener)
    try? resumeTimer.arm(after: .seconds(1))
  }

  private func resumeAccepting() {
    guard !isAccepting, clients.count < Self.maxClients else { return }
    do {
      try loop.watch(listener) { [unowned self] _ in self.acceptAll() }
      isAccepting = true
      resumeTimer.disarm()
    } catch {
      try? resumeTimer.arm(after: .seconds(1))
    }
  }

  private func acceptAll() {
    while true {
      guard clients.count < Self.maxClients else {
        pauseAccepting()
        return
      }
      // accept4 needs _GNU_SOURCE, which Swift's Glibc module does not set: accept, then flags.
      let fd = accept(listener, nil, nil)
      if fd < 0 {
        if errno == EINTR { continue }
        if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
          // The listener stays readable while the backlog is full: stop watching it, or the
          // loop would spin here.
          Log.warning("control socket: \(SystemError("accept")); pausing new connections")
          pauseAccepting()
        } else if errno != EAGAIN && errno != EWOULDBLOCK {
          Log.warning("control socket: \(SystemError("accept"))")
        }
        return
      }
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      guard let peer = Self.credentials(of: fd) else {
        close(fd)
        continue
      }
      do {
        let client = try Client(fd: fd, peer: peer, server: self)
        clients[fd] = client
        try loop.watch(fd) { [unowned self, unowned client] events in
          if events & EPOLLOUT.rawValue != 0 { self.flush(client) }
          // The flush may have finished and closed it; its fd number may already be reused.
          if events & ~EPOLLOUT.rawValue != 0 && !client.isClosed { self.readable(client) }
        }
        try client.idleTimer.arm(after: Self.requestTimeout)
        try loop.watch(client.idleTimer.fd) { [unowned self, unowned client] _ in
          guard client.idleTimer.acknowledge() != nil, !client.isBusy else { return }
          Log.info("control: client pid \(client.peer.pid) sent no request in time; closing")
          self.drop(client)
        }
      } catch {
        Log.warning("control socket: \(error)")
        if let client = clients[fd] { drop(client) } else { close(fd) }
      }
    }
  }

  private func readable(_ client: Client) {
    guard clients[client.fd] === client else { return }
    var chunk = [UInt8](repeating: 0, count: 4096)
    // A bounded number of reads per wake-up: a client pouring bytes must not keep the loop
    // (and the alarm timers) from everything else. Level-triggered epoll brings it back.
    for _ in 0..<16 {
      let count = read(client.fd, &chunk, chunk.count)
      if count < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN || errno == EWOULDBLOCK { return }
        drop(client)
        return
      }
      if count == 0 {
        // The peer closed. A pairing in progress is abandoned by the daemon's handler.
        drop(client)
        return
      }
      if client.isBusy || client.closeAfterFlush { continue }  // one request per connection
      client.buffer += chunk[0..<count]
      if let newline = client.buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = client.buffer[..<newline]
        client.buffer.removeAll()
        client.idleTimer.disarm()
        onRequest(client, Result { () throws(ControlFailure) in try ControlWire.decode(line) })
        if client.isClosed { return }
      } else if client.buffer.count > ControlWire.maxRequestBytes {
        Log.warning("control: client pid \(client.peer.pid) sent over 64 KiB without a newline; closing")
        client.buffer.removeAll()
        client.send(.failure(ControlFailure(.badRequest, "request longer than 64 KiB")))
        return
      }
    }
  }

  /// Most a client may leave unread before it is dropped.
  static let maxUnreadReplyBytes = 4 << 20

  fileprivate func flush(_ client: Client) {
    guard clients[client.fd] === client else { return }
    while !client.outbox.isEmpty {
      let written = client.outbox.withUnsafeBytes { raw in
        send(client.fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
      }
      if written < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN || errno == EWOULDBLOCK {
          // The client reads slowly: finish when its socket has room, never by blocking the loop.
          guard client.outbox.count <= Self.maxUnreadReplyBytes else {
            drop(client)
            return
          }
          loop.change(client.fd, events: EPOLLIN.rawValue | EPOLLOUT.rawValue)
          return
        }
        drop(client)
        return
      }
      client.outbox.removeFirst(written)
    }
    loop.change(client.fd, events: EPOLLIN.rawValue)
    if client.closeAfterFlush { drop(client) }
  }

  /// Closes a connection.
  func drop(_ client: Client) {
    guard clients[client.fd] === client else { return }
    clients[client.fd] = nil
    client.server = nil
    loop.unwatch(client.fd)
    loop.unwatch(client.idleTimer.fd)
    close(client.fd)
    onClose?(client)
    resumeAccepting()
  }

  /// Called when a connection closes (so a pairing waiting on it can be abandoned).
  var onClose: ((Client) -> Void)?

  private static func credentials(of fd: Int32) -> PeerCredentials? {
    // struct ucred { pid_t pid; uid_t uid; gid_t gid; } — declared only under _GNU_SOURCE.
    var cred: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
    var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
    guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0 else { return nil }
    var groups = [UInt32](repeating: 0, count: 64)
    var groupsLength = socklen_t(groups.count * 4)
    if getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, &groups, &groupsLength) == 0 {
      groups.removeLast(groups.count - Int(groupsLength) / 4)
    } else {
      groups = []
    }
    return PeerCredentials(pid: cred.pid, uid: cred.uid, gid: cred.gid, groups: groups)
  }
}
