import CMicroHTTPD
import Glibc
import PuckCore
import Synchronization

/// Why the server did not start.
public struct HTTPServerError: Error, Hashable, Sendable, CustomStringConvertible {
  public let description: String
}

/// The web app's HTTP server: libmicrohttpd with one internal polling thread (epoll), the only
/// owner of its `struct MHD_Daemon`. Each request is read on that thread (headers bounded by
/// `Limits.memory`, the body by `Limits.body`); then its connection is suspended
/// (`MHD_suspend_connection`) and `handler` runs on one of `Limits.workers` threads
/// (`RequestWorkers`), which leaves the answer and resumes the connection
/// (`MHD_resume_connection`); the polling thread sends it with the security headers every
/// response carries (`HTTPResponse.securityHeaders`). So a request that waits for puckd (the
/// pre-flight check waits up to 5 s for the devices) never holds another phone's page: the
/// polling thread goes on serving the other connections meanwhile. Starting one sets the process to a single malloc
/// arena (`M_ARENA_MAX`), so the workers do not each keep one resident.
///
/// Cut off: a body over `Limits.body` (413, and the connection closed: at once when its
/// `Content-Length` says so, otherwise as soon as it passes the limit), headers over
/// `Limits.memory` (libmicrohttpd's 431), a connection idle for `Limits.timeout`, a request not
/// in whole `Limits.requestTime` after its connection opened or its last answer went out
/// (`RequestDeadlines`), more than
/// `Limits.connections` connections, or more than `Limits.perAddress` from one address.
///
/// Synchronisation: `Sendable` without `@unchecked`: `handle` (the daemon pointer, freed once
/// by `stop()`) is behind a `Mutex`; the handler, limits and workers are immutable. The
/// per-request state lives in a `PendingRequest` that only libmicrohttpd's thread touches, from
/// its first call for the request to the completion callback that frees it; the one thing a
/// worker hands back, the answer, goes through its own `Mutex` (`PendingAnswer`).
public final class HTTPServer: Sendable {
  /// The bounds on what a client can make the server hold or wait for.
  public struct Limits: Sendable {
    /// Connections at once, from everyone.
    public var connections = 64
    /// Connections at once from one address.
    public var perAddress = 16
    /// A connection with nothing sent or received for this long is closed.
    public var timeout: Duration = .seconds(10)
    /// A request (line, headers and body) must be in whole this long after its connection opened
    /// or the last answer on it went out, however steadily it trickles in (`RequestDeadlines`).
    public var requestTime: Duration = .seconds(15)
    /// Bytes per connection for the request line and headers (libmicrohttpd's memory pool).
    public var memory = 16 * 1024
    /// Bytes of body: the web app's largest form is well under 2 KB.
    public var body = 8 * 1024
    /// Requests answered at once (threads, started with the server; the unit's `TasksMax` is 16):
    /// more wait their turn, their connections suspended.
    public var workers = 4

    public init() {}
  }

  /// A certificate and its private key, as PEM text: with them the server speaks HTTPS only.
  public struct TLS: Sendable {
    public var certificate: String
    public var key: String

    public init(certificate: String, key: String) {
      self.certificate = certificate
      self.key = key
    }
  }

  /// The handler and the limits, which libmicrohttpd's callbacks reach through their context
  /// pointer; retained by the server for as long as the daemon runs.
  private final class Context: Sendable {
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    let limits: Limits
    let workers: RequestWorkers
    let deadlines: RequestDeadlines
    /// Requests handed to a worker whose answer has not yet gone out (or been given up on):
    /// `stop()` lets them leave before it closes the connections.
    let unsent = Mutex(0)

    init(handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse, limits: Limits, workers: RequestWorkers)
    {
      self.handler = handler
      self.limits = limits
      self.workers = workers
      deadlines = RequestDeadlines(allowed: limits.requestTime, log: WebLog.write)
    }
  }

  /// `@unchecked`: an `OpaquePointer` is not `Sendable`; it is only passed to
  /// `MHD_stop_daemon`, once, under `handle`'s lock.
  private struct Handle: @unchecked Sendable {
    let pointer: OpaquePointer
  }

  private let context: Context
  private let handle: Mutex<Handle?>

  /// Starts listening on `address`, `port` (plain HTTP, or HTTPS with `tls`).
  public init(
    address: ListenAddress, port: Int, tls: TLS?, limits: Limits = Limits(),
    handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
  ) throws(HTTPServerError) {
    // Before the workers start, so they share the main arena (measured: about 470 KiB less
    // resident, docs/BENCHMARKS.md "The web app").
    puck_web_single_malloc_arena()
    context = Context(
      handler: handler, limits: limits, workers: try RequestWorkers(count: max(1, limits.workers)))
    let contextPointer = Unmanaged.passUnretained(context).toOpaque()
    guard context.deadlines.start() else {
      context.workers.stop()
      throw HTTPServerError(description: "cannot start the thread that cuts off slow requests")
    }
    let addressText: String? =
      switch address {
      case .all: nil
      case .ipv4(let text), .ipv6(let text): text
      }
    let started: OpaquePointer? = withOptionalCString(addressText) { addressPointer in
      withOptionalCString(tls?.key) { keyPointer in
        withOptionalCString(tls?.certificate) { certificatePointer in
          var settings = puck_mhd_settings(
            address: addressPointer, port: UInt16(clamping: port),
            connection_limit: UInt32(limits.connections),
            per_address_limit: UInt32(limits.perAddress),
            timeout_seconds: UInt32(max(1, limits.timeout.components.seconds)), memory_limit: limits.memory,
            tls_key: keyPointer, tls_certificate: certificatePointer, notify_connection: Self.notify,
            notify_connection_context: contextPointer)
          return puck_mhd_start(&settings, Self.access, contextPointer, Self.completed, contextPointer)
        }
      }
    }
    guard let started else {
      let code = errno
      context.workers.stop()
      context.deadlines.stop()
      throw HTTPServerError(
        description: "cannot listen on \(address):\(port): \(String(cString: strerror(code)))"
          + (tls == nil ? "" : " (or the certificate and key were refused)"))
    }
    handle = Mutex(Handle(pointer: started))
  }

  deinit { stop() }

  /// Stops listening and closes every connection (`MHD_stop_daemon`); first waits for the
  /// requests in progress to finish and answers the queued ones 503, so no connection is left
  /// suspended (libmicrohttpd must not be stopped with one). Safe to call more than once.
  public func stop() {
    // The lock hands out the `Sendable` handle, not the raw pointer (a pointer out of a lock is
    // not `sending` for Swift 6.0's region checker).
    let taken = handle.withLock { handle -> Handle? in
      defer { handle = nil }
      return handle
    }
    guard let pointer = taken?.pointer else { return }
    context.workers.stop()
    // The answers the workers left go out before the connections close, for at most 2 s (a
    // client that does not read them is not waited for).
    var pauses = 0
    while pauses < 200, context.unsent.withLock({ $0 }) > 0 {
      var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
      nanosleep(&pause, nil)
      pauses += 1
    }
    context.deadlines.stop()
    MHD_stop_daemon(pointer)
  }

  // MARK: libmicrohttpd's callbacks (on its polling thread)

  /// Called for each request: once when the headers are in, once per piece of body, and once
  /// more with no body left, when the request is answered.
  private static let access: MHD_AccessHandlerCallback = {
    contextPointer, connection, url, method, _, uploadData, uploadSize, requestContext in
    guard let contextPointer, let connection, let uploadSize, let requestContext else { return .NO }
    let context = Unmanaged<Context>.fromOpaque(contextPointer).takeUnretainedValue()
    guard let pendingPointer = requestContext.pointee else {
      let pending = PendingRequest()
      requestContext.pointee = Unmanaged.passRetained(pending).toOpaque()
      // A body announced as too large is refused before a byte of it is read.
      if let length = lookup(connection, .HEADER_KIND, "Content-Length"),
        (Int(length) ?? Int.max) > context.limits.body
      {
        pending.refused = true
        return queue(tooLarge(context.limits), on: connection, closing: true)
      }
      return .YES
    }
    let pending = Unmanaged<PendingRequest>.fromOpaque(pendingPointer).takeUnretainedValue()
    let size = uploadSize.pointee
    if size > 0 {
      uploadSize.pointee = 0
      if pending.refused { return .YES }
      guard pending.body.count + size <= context.limits.body, let uploadData else {
        // A body that passes the limit without having announced its length (chunked): cut off
        // at once. libmicrohttpd cannot answer in the middle of a body, so the connection is
        // closed without one (it logs "Application reported internal error").
        pending.refused = true
        return .NO
      }
      uploadData.withMemoryRebound(to: UInt8.self, capacity: size) { bytes in
        pending.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: size))
      }
      return .YES
    }
    if pending.refused { return .YES }
    if let answer = pending.answer {
      // Called again after a worker left the answer and resumed the connection.
      return queue(
        answer.take() ?? .text("the request was not answered; try again", status: 500), on: connection,
        closing: false)
    }
    var client = [CChar](repeating: 0, count: 64)
    var key = [CChar](repeating: 0, count: 64)
    puck_mhd_client_address(connection, &client, &key, 64)
    let request = HTTPRequest(
      method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/",
      query: values(connection, .GET_ARGUMENT_KIND), headers: values(connection, .HEADER_KIND),
      body: pending.body, client: text(of: client), clientKey: text(of: key))
    // Answered on a worker, the connection suspended meanwhile: suspended first, so the
    // worker's resume can never come before it.
    context.deadlines.received(connection)
    let answer = PendingAnswer()
    pending.answer = answer
    context.unsent.withLock { $0 += 1 }
    MHD_suspend_connection(connection)
    let suspended = SuspendedConnection(pointer: connection)
    let handler = context.handler
    let queued = context.workers.submit { stopping in
      answer.leave(stopping ? stoppingAnswer() : handler(request))
      MHD_resume_connection(suspended.pointer)
    }
    if !queued {
      answer.leave(stoppingAnswer())
      MHD_resume_connection(connection)
    }
    return .YES
  }

  /// A connection opened or closed: its request deadline set or dropped.
  private static let notify: MHD_NotifyConnectionCallback = { contextPointer, connection, _, code in
    guard let contextPointer, let connection else { return }
    let deadlines = Unmanaged<Context>.fromOpaque(contextPointer).takeUnretainedValue().deadlines
    if code == .CONNECTION_NOTIFY_STARTED {
      var client = [CChar](repeating: 0, count: 64)
      var key = [CChar](repeating: 0, count: 64)
      puck_mhd_client_address(connection, &client, &key, 64)
      deadlines.opened(connection, socket: puck_mhd_connection_fd(connection), client: text(of: client))
    } else {
      deadlines.closed(connection)
    }
  }

  private static func stoppingAnswer() -> HTTPResponse {
    .text("puck-web is stopping; try again in a moment", status: 503)
  }

  /// Frees a request's state when libmicrohttpd is done with it, answered or not.
  private static let completed: MHD_RequestCompletedCallback = {
    contextPointer, connection, requestContext, _ in
    if let contextPointer, let connection {
      Unmanaged<Context>.fromOpaque(contextPointer).takeUnretainedValue().deadlines.answered(connection)
    }
    guard let requestContext, let pointer = requestContext.pointee else { return }
    let pending = Unmanaged<PendingRequest>.fromOpaque(pointer).takeRetainedValue()
    requestContext.pointee = nil
    if pending.answer != nil, let contextPointer {
      Unmanaged<Context>.fromOpaque(contextPointer).takeUnretainedValue().unsent.withLock { $0 -= 1 }
    }
  }

  private static func tooLarge(_ limits: Limits) -> HTTPResponse {
    .text("request too large (at most \(limits.body) bytes of body)", status: 413)
  }

  /// Sends `response` with the security headers; `closing` closes the connection after it.
  private static func queue(_ response: HTTPResponse, on connection: OpaquePointer, closing: Bool)
    -> MHD_Result
  {
    let created = response.body.withUnsafeBytes { puck_mhd_response($0.baseAddress, $0.count) }
    guard let created else { return .NO }
    defer { MHD_destroy_response(created) }
    for header in HTTPResponse.securityHeaders + response.headers {
      // Refused only for a value with a line break, which none of ours has.
      _ = MHD_add_response_header(created, header.name, header.value)
    }
    if closing { _ = MHD_add_response_header(created, "Connection", "close") }
    return MHD_queue_response(connection, UInt32(response.status), created)
  }

  /// The value of `name` of `kind` (a header, a query argument).
  private static func lookup(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ name: String) -> String? {
    MHD_lookup_connection_value(connection, kind, name).map { String(cString: $0) }
  }

  /// Every value of `kind`, by name (headers by lower-case name); a repeated name keeps its
  /// first value.
  private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [String: String] {
    let collector = ValueCollector(lowercased: kind == .HEADER_KIND)
    withExtendedLifetime(collector) {
      _ = MHD_get_connection_values(
        connection, kind,
        { collectorPointer, _, key, value in
          guard let collectorPointer, let key else { return .YES }
          let collector = Unmanaged<ValueCollector>.fromOpaque(collectorPointer).takeUnretainedValue()
          collector.add(String(cString: key), value.map { String(cString: $0) } ?? "")
          return .YES
        }, Unmanaged.passUnretained(collector).toOpaque())
    }
    return collector.values
  }
}

/// What one request has sent so far; touched only on libmicrohttpd's thread.
private final class PendingRequest {
  var body: [UInt8] = []
  /// A response refusing it has been queued; the rest of its body is dropped.
  var refused = false
  /// Set when the request went to a worker; holds its answer once the connection is resumed.
  var answer: PendingAnswer?
}

/// The answer a worker leaves for libmicrohttpd's thread, which takes it once the worker has
/// resumed the connection.
private final class PendingAnswer: Sendable {
  private let response = Mutex<HTTPResponse?>(nil)

  func leave(_ answer: HTTPResponse) {
    response.withLock { $0 = answer }
  }

  func take() -> HTTPResponse? {
    response.withLock { response -> HTTPResponse? in
      defer { response = nil }
      return response
    }
  }
}

/// A suspended connection, for the worker that resumes it.
///
/// `@unchecked Sendable`: an `OpaquePointer` is not `Sendable`; this one is only passed to
/// `MHD_resume_connection`, once, by the worker, which libmicrohttpd allows from any thread. A
/// suspended connection is neither timed out nor freed, so the pointer stays valid until then.
private struct SuspendedConnection: @unchecked Sendable {
  let pointer: OpaquePointer
}

/// Gathers the values `MHD_get_connection_values` walks through.
private final class ValueCollector {
  let lowercased: Bool
  var values: [String: String] = [:]
  /// At most this many: a request with hundreds of headers keeps the first ones.
  static let maximum = 64

  init(lowercased: Bool) {
    self.lowercased = lowercased
  }

  func add(_ name: String, _ value: String) {
    let key = lowercased ? name.lowercased() : name
    guard values.count < Self.maximum, values[key] == nil else { return }
    values[key] = value
  }
}

/// The text of a NUL-terminated C buffer.
private func text(of buffer: [CChar]) -> String {
  String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// `body` with a C string of `text`, or with nil when there is no text.
private func withOptionalCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result
{
  guard let text else { return body(nil) }
  return text.withCString { body($0) }
}
