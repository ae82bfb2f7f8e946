import CLinux
import Glibc
import PuckCore
import PuckSystem

/// The control socket (docs/DESIGN.md §7): a Unix stream socket speaking line-delimited JSON.
///
/// Every client is non-blocking and lives on the event loop: a request line over 64 KiB, bytes
/// that are not a request, a client that connects and sends nothing within a few seconds, and a
/// client that stops reading its reply are answered with an error or dropped, and never hold up
/// the loop (or a ring). Unprivileged peers share a fixed number of slots and a budget of
/// buffered bytes; root and the `puckalarm` group always get in, by reserved slots and, when
/// those are full too, by evicting an unprivileged peer.
///
/// Ownership: the table `clients` owns every open connection. Loop handlers hold only the
/// connection's id and look it up on every event, because a peer decides when its connection
/// ends (it hangs up, stops reading, floods), and a handler must never reach a connection that
/// an earlier step of the same wake-up closed. The daemon may keep a `Client` past its end (a
/// pairing waiting for a tag); sending to a closed client does nothing.
final class ControlServer {
  /// One accepted connection (`ControlClient`).
  typealias Client = ControlClient

  let path: String
  private let listener: FileDescriptor
  private let loop: EventLoop<LoopMessage>
  /// Every open connection, by id; the only owner of the connections.
  private var clients: [UInt64: Client] = [:]
  private var nextClientID: UInt64 = 1
  /// Reply bytes queued and not yet written, over all clients.
  private var bufferedBytes = 0
  private var isAccepting = true
  /// Whether "every unprivileged slot is taken" was logged since the last free slot.
  private var loggedFull = false
  /// Re-enables accepting after a pause; made in `init` once the listener is, as its handler
  /// needs `self`.
  private var resumeTimer: TimerHandle!
  private let isPrivileged: (PeerCredentials) -> Bool
  private let onRequest: (Client, Result<ControlRequest, ControlFailure>) -> Void

  /// Binds and listens on `path` (its directory made, a stale socket replaced), mode 0666: who
  /// may do what is decided per request from the peer's credentials, not the file mode.
  /// `isPrivileged`: whether a peer may use the reserved slots (root, the `puckalarm` group).
  init(
    path: String, loop: EventLoop<LoopMessage>,
    isPrivileged: @escaping (PeerCredentials) -> Bool,
    onRequest: @escaping (Client, Result<ControlRequest, ControlFailure>) -> Void
  ) throws(SystemError) {
    self.path = path
    self.loop = loop
    self.isPrivileged = isPrivileged
    self.onRequest = onRequest
    try makeParentDirectories(of: path)
    guard let address = UnixSocketAddress(path) else { throw SystemError("bind", code: ENAMETOOLONG) }
    let listener = try FileDescriptor("socket") {
      socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
    }
    self.listener = listener
    unlink(path)
    do throws(SystemError) {
      try address.withSockaddr { (pointer, length) throws(SystemError) in
        _ = try systemCall("bind") { bind(listener.rawValue, pointer, length) }
      }
      chmod(path, 0o666)
      try systemCall("listen") { listen(listener.rawValue, 16) }
      resumeTimer = try loop.timer(.monotonic) { [unowned self] _ in
        self.resumeAccepting()
        if !self.isAccepting { try? self.resumeTimer.arm(after: .seconds(1)) }
      }
      try loop.watch(listener.rawValue) { [unowned self] _ in self.acceptAll() }
    } catch {
      listener.close()
      throw error
    }
  }

  /// Closes every connection and removes the socket file.
  func shutdown() {
    for client in clients.values { drop(client) }
    resumeTimer.cancel()
    loop.unwatch(listener.rawValue)
    listener.close()
    unlink(path)
  }

  // MARK: - Accepting

  private var unprivilegedCount: Int { clients.values.count { !$0.isPrivileged } }

  /// Whether accepting could admit anyone now. While an unprivileged peer is connected the
  /// answer is yes even with every slot taken: a privileged newcomer evicts one, and only by
  /// accepting can the daemon see who is knocking. Leaving connections in the listen backlog
  /// would let unprivileged peers queued there starve root.
  private var canAdmit: Bool {
    clients.count < ControlLimits.maxClients + ControlLimits.reservedPrivilegedSlots || unprivilegedCount > 0
  }

  /// Stops accepting for a while (every slot held by privileged peers, or out of file
  /// descriptors); accepting resumes when a client leaves or after a second.
  private func pauseAccepting() {
    guard isAccepting else { return }
    isAccepting = false
    loop.unwatch(listener.rawValue)
    try? resumeTimer.arm(after: .seconds(1))
  }

  private func resumeAccepting() {
    guard !isAccepting, canAdmit else { return }
    do {
      try loop.watch(listener.rawValue) { [unowned self] _ in self.acceptAll() }
      isAccepting = true
      resumeTimer.disarm()
    } catch {
      try? resumeTimer.arm(after: .seconds(1))
    }
  }

  private func acceptAll() {
    // Level-triggered epoll brings the listener back for connections left after this batch.
    for _ in 0..<ControlLimits.acceptsPerWakeUp {
      guard canAdmit else {
        pauseAccepting()
        return
      }
      // accept4 needs _GNU_SOURCE, which Swift's Glibc module does not set: accept, then flags.
      let connection: FileDescriptor
      do throws(SystemError) {
        connection = try FileDescriptor("accept") { accept(listener.rawValue, nil, nil) }
      } catch {
        if [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.code) {
          // The listener stays readable while the backlog is full: stop watching it, or the
          // loop would spin here.
          Log.warning("control socket: \(error); pausing new connections")
          pauseAccepting()
        } else if error.code != EAGAIN && error.code != EWOULDBLOCK {
          Log.warning("control socket: \(error)")
        }
        return
      }
      let fd = connection.rawValue
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      guard let peer = PeerCredentials(socket: fd) else {
        connection.close()
        continue
      }
      admit(connection, peer: peer)
    }
  }

  /// Gives an accepted connection a slot: a privileged peer always gets one (evicting the oldest
  /// unprivileged peer when every slot is taken), an unprivileged one only while the
  /// unprivileged slots are not all taken.
  private func admit(_ connection: FileDescriptor, peer: PeerCredentials) {
    let privileged = isPrivileged(peer)
    if privileged {
      if clients.count >= ControlLimits.maxClients + ControlLimits.reservedPrivilegedSlots,
        let oldest = oldestUnprivileged()
      {
        Log.notice("control: every slot is taken; closing pid \(oldest.peer.pid) to let uid \(peer.uid) in")
        drop(oldest)
      }
    } else if unprivilegedCount >= ControlLimits.maxClients {
      if !loggedFull {
        Log.notice("control: every unprivileged slot is taken; refusing connections until one frees")
        loggedFull = true
      }
      ControlClient.refuse(
        connection, ControlFailure(.refused, "puckd has too many connections; try again in a few seconds"))
      return
    }
    let id = nextClientID
    nextClientID += 1
    let client: Client
    do {
      let deadline = try loop.timer(.monotonic) { [unowned self] _ in self.deadlinePassed(forClient: id) }
      client = Client(
        id: id, connection: connection, peer: peer, isPrivileged: privileged, server: self,
        deadline: deadline)
    } catch {
      Log.warning("control socket: \(error)")
      connection.close()
      return
    }
    clients[id] = client
    do {
      try loop.watch(client.fd) { [unowned self] events in self.handle(events, forClient: id) }
      try client.deadline.arm(after: ControlLimits.requestTimeout)
    } catch {
      Log.warning("control socket: \(error)")
      drop(client)
    }
  }

  /// The unprivileged connection open longest: the likeliest to be stuck.
  private func oldestUnprivileged(where condition: (Client) -> Bool = { _ in true }) -> Client? {
    clients.values.filter { !$0.isPrivileged && condition($0) }.min { $0.id < $1.id }
  }

  // MARK: - Per-client events

  /// One epoll wake-up for a connection: room to write, bytes to read, or a hang-up.
  private func handle(_ events: UInt32, forClient id: UInt64) {
    if events & EPOLLOUT.rawValue != 0, let client = clients[id] { flush(client) }
    // The flush may have finished the reply and closed the connection: look it up again.
    if events & ~EPOLLOUT.rawValue != 0, let client = clients[id] { readable(client) }
  }

  /// The client's deadline passed: no request in time, or a reply that made no progress.
  private func deadlinePassed(forClient id: UInt64) {
    guard let client = clients[id] else { return }
    if client.pendingBytes > 0 {
      Log.info(
        "control: client pid \(client.peer.pid) read nothing of its reply for \(ControlLimits.writeTimeout); closing"
      )
      drop(client)
    } else if !client.hasRequest {
      Log.info("control: client pid \(client.peer.pid) sent no request in time; closing")
      drop(client)
    }
    // Otherwise a long request (pairing) holds the connection, with its own timeout.
  }

  private func readable(_ client: Client) {
    var chunk = [UInt8](repeating: 0, count: 4096)
    // A bounded number of reads per wake-up: a client pouring bytes must not keep the loop
    // (and the alarm timers) from everything else. Level-triggered epoll brings it back.
    for _ in 0..<16 {
      let count: Int
      do throws(SystemError) {
        count = try systemCall("read") { read(client.fd, &chunk, chunk.count) }
      } catch {
        if error.code != EAGAIN && error.code != EWOULDBLOCK { drop(client) }
        return
      }
      if count == 0 {
        // The peer closed. A pairing in progress is abandoned by the daemon's handler.
        drop(client)
        return
      }
      switch client.received(chunk[0..<count], limit: ControlWire.maxRequestBytes) {
      case .waiting, .ignored: continue
      case .line(let line):
        client.deadline.disarm()
        onRequest(client, Result { () throws(ControlFailure) in try ControlWire.decode(line) })
        if client.isClosed { return }
      case .oversized:
        Log.warning("control: client pid \(client.peer.pid) sent over 64 KiB without a newline; closing")
        client.deadline.disarm()
        send(.failure(.badRequest, "request longer than 64 KiB"), to: client)
        return
      }
    }
  }

  // MARK: - Writing

  /// Queues one reply line for `client` and writes what its socket takes now. A reply that
  /// would exceed the per-client or the total budget is replaced by a short error that ends
  /// the connection.
  func send(_ reply: ControlReply, to client: Client) {
    guard clients[client.id] === client, !client.closesAfterFlush else { return }
    var line = ControlWire.encode(reply) + [UInt8(ascii: "\n")]
    var isFinal = reply.ok != nil
    if let refusal = makeRoom(for: line.count, client: client) {
      Log.notice("control: reply to pid \(client.peer.pid) not sent: \(refusal.message)")
      line = ControlWire.encode(.failure(refusal)) + [UInt8(ascii: "\n")]
      isFinal = true
    }
    // Making room may have closed connections, and their handlers may have replied; never this one,
    // which is privileged whenever others are evicted for it, but check rather than assume.
    guard clients[client.id] === client else { return }
    client.queue(line, final: isFinal)
    bufferedBytes += line.count
    flush(client)
  }

  /// Why `count` more bytes cannot be queued for `client`, or nil when they can. Counts the
  /// whole line before any of it is written, so the budgets hold whatever the kernel takes.
  /// For root and the group, unprivileged peers with replies waiting are evicted, oldest first,
  /// until the line fits.
  private func makeRoom(for count: Int, client: Client) -> ControlFailure? {
    if client.pendingBytes + count > ControlLimits.maxBufferedBytesPerClient {
      return ControlFailure(
        .failed,
        "the reply (\(count) bytes) is larger than puckd sends at once; ask for less (history --limit)")
    }
    if client.isPrivileged {
      while bufferedBytes + count > ControlLimits.maxBufferedBytes,
        let reader = oldestUnprivileged(where: { $0.pendingBytes > 0 })
      {
        Log.notice(
          "control: closing pid \(reader.peer.pid), a slow reader, to make room for uid \(client.peer.uid)")
        drop(reader)
      }
    }
    if bufferedBytes + count > ControlLimits.maxBufferedBytes {
      return ControlFailure(.refused, "puckd is busy sending to other clients; try again in a few seconds")
    }
    return nil
  }

  /// Writes as much of the client's queued reply as its socket takes; the rest waits for
  /// EPOLLOUT under the progress deadline. Closes the connection after a final reply.
  private func flush(_ client: Client) {
    let (written, failure) = client.write()
    bufferedBytes -= written
    if let failure {
      guard failure.code == EAGAIN || failure.code == EWOULDBLOCK else {
        drop(client)
        return
      }
      // The client reads slowly: finish when its socket has room, never by blocking the
      // loop, and only while it keeps reading.
      loop.change(client.fd, events: EPOLLIN.rawValue | EPOLLOUT.rawValue)
      if written > 0 || !client.deadline.isArmed {
        do {
          try client.deadline.arm(after: ControlLimits.writeTimeout)
        } catch {
          Log.warning("control socket: \(error)")
          drop(client)
        }
      }
      return
    }
    client.deadline.disarm()
    loop.change(client.fd, events: EPOLLIN.rawValue)
    if client.closesAfterFlush { drop(client) }
  }

  /// Closes a connection.
  func drop(_ client: Client) {
    guard clients[client.id] === client else { return }
    clients[client.id] = nil
    bufferedBytes -= client.detach()
    loop.unwatch(client.fd)
    client.deadline.cancel()
    client.connection.close()
    if !client.isPrivileged { loggedFull = false }
    onClose?(client)
    resumeAccepting()
  }

  /// Called when a connection closes (so a pairing waiting on it can be abandoned).
  var onClose: ((Client) -> Void)?
}
