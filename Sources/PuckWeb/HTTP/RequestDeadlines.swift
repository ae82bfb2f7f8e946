import Glibc
import PuckSystem
import Synchronization

/// The time a client has to send one whole request: from its connection opening, or from the
/// last answer on it going out, until the request's last byte is in. libmicrohttpd's own
/// timeout only counts idle time, so a client that sends one byte of headers every few seconds
/// (a slow drip) would otherwise hold its connection for hours, and a few such clients every
/// connection there is. A thread of its own sleeps until the earliest deadline (with none, until
/// a connection opens) and shuts down the socket of a connection past its deadline;
/// libmicrohttpd then closes it as a client that went away. An idle server makes no wake-up.
///
/// Synchronisation: the table is behind a `Mutex`. A connection is dropped from it in
/// libmicrohttpd's "closed" notification, which comes before libmicrohttpd closes the socket,
/// and the sweep shuts sockets down under the same lock, so it never touches a socket number
/// that has been closed (and perhaps reused).
final class RequestDeadlines: Sendable {
  /// A connection being watched.
  private struct Watched: Sendable {
    let socket: Int32
    let client: String
    /// When its request must be in; nil while none is expected (answering one).
    var due: MonotonicInstant?
  }

  private struct Table: Sendable {
    var watched: [UInt: Watched] = [:]
    var stopping = false

    /// Nothing is due: the sweeper sleeps until it is signalled.
    var isIdle: Bool { !watched.values.contains { $0.due != nil } }
  }

  /// How long a request may take to arrive.
  let allowed: Duration
  private let log: @Sendable (String) -> Void
  private let table = Mutex(Table())
  private let thread = Mutex<pthread_t?>(nil)
  /// Wakes the sweeper when a deadline is set while none was (it sleeps with no timeout then;
  /// with one set, a new one is never earlier, as every deadline is `allowed` from its start),
  /// and when it is stopped.
  private let wakeup = Wakeup.bestEffort()
  /// How many times the sweeper has woken (for the tests: an idle server does not wake).
  private let wakes = Atomic<Int>(0)

  init(allowed: Duration, log: @escaping @Sendable (String) -> Void) {
    self.allowed = allowed
    self.log = log
  }

  /// Starts the sweeping thread; false when it cannot be started (nor its eventfd made).
  func start() -> Bool {
    guard wakeup.fd >= 0 else { return false }
    guard let started = try? SystemThread.start({ [self] in self.sweepUntilStopped() }) else { return false }
    thread.withLock { $0 = started }
    return true
  }

  /// Stops the sweeping thread and waits for it. Safe to call more than once.
  func stop() {
    table.withLock { $0.stopping = true }
    wakeup.signal()
    let taken = thread.withLock { thread -> pthread_t? in
      defer { thread = nil }
      return thread
    }
    if let taken { pthread_join(taken, nil) }
  }

  /// A connection opened on `socket`: its first request is due within `allowed`.
  func opened(_ connection: OpaquePointer, socket: Int32, client: String) {
    let due = MonotonicInstant.now() + allowed
    setDeadline { $0.watched[Self.key(connection)] = Watched(socket: socket, client: client, due: due) }
  }

  /// The connection's request is in whole: nothing is due until it is answered.
  func received(_ connection: OpaquePointer) {
    table.withLock { $0.watched[Self.key(connection)]?.due = nil }
  }

  /// The connection's answer went out: its next request is due within `allowed`.
  func answered(_ connection: OpaquePointer) {
    let due = MonotonicInstant.now() + allowed
    setDeadline { $0.watched[Self.key(connection)]?.due = due }
  }

  /// Sets a deadline through `change`, and wakes the sweeper if nothing was due before (it is
  /// then asleep with no timeout).
  private func setDeadline(_ change: (inout Table) -> Void) {
    let wasIdle = table.withLock { table in
      defer { change(&table) }
      return table.isIdle
    }
    if wasIdle { wakeup.signal() }
  }

  /// The connection is closing (before its socket is).
  func closed(_ connection: OpaquePointer) {
    table.withLock { _ = $0.watched.removeValue(forKey: Self.key(connection)) }
  }

  /// Shuts down the sockets of the connections past their deadline at `now`; returns their
  /// clients.
  @discardableResult
  func sweep(now: MonotonicInstant) -> [String] {
    table.withLock { table in
      var late: [String] = []
      for (key, connection) in table.watched {
        guard let due = connection.due, due <= now else { continue }
        shutdown(connection.socket, Int32(SHUT_RDWR))
        table.watched[key]?.due = nil
        late.append(connection.client)
      }
      return late
    }
  }

  /// How many times the sweeping thread has woken since it started.
  var wakeCount: Int { wakes.load(ordering: .relaxed) }

  /// The earliest deadline, or nil when nothing is due or the sweeper is stopping (`stopping`).
  private func nextDue() -> (stopping: Bool, due: MonotonicInstant?) {
    table.withLock { table in
      (table.stopping, table.watched.values.lazy.compactMap(\.due).min())
    }
  }

  private func sweepUntilStopped() {
    while case let next = nextDue(), !next.stopping {
      wakeup.wait(next.due.map { $0 - MonotonicInstant.now() })
      wakes.add(1, ordering: .relaxed)
      for client in sweep(now: MonotonicInstant.now()) {
        log(
          "<4>puck-web: cut off a request from \(client) that took more than \(allowed.components.seconds) s to arrive"
        )
      }
    }
  }

  private static func key(_ connection: OpaquePointer) -> UInt {
    UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
  }
}
