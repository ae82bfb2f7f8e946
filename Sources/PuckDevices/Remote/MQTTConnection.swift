import CMosquitto
import Glibc
import PuckSystem
import Synchronization

/// Where the broker is and how to log in (`[mqtt]` on the dock, the node's own settings).
public struct BrokerSettings: Hashable, Sendable {
  public var host: String
  public var port: Int
  /// The broker account; nil for a broker that allows anonymous clients.
  public var username: String?
  public var password: String?
  /// A CA file: with it the connection uses TLS and checks the broker's certificate.
  public var caFile: String?

  public init(host: String = "127.0.0.1", port: Int = 1883) {
    self.host = host
    self.port = port
  }

  /// `host:port`, for logs and status.
  public var address: String { "\(host):\(port)" }
}

/// A libmosquitto call that failed: the function and libmosquitto's text for its code.
public struct MQTTError: Error, Hashable, Sendable, CustomStringConvertible {
  public let function: String
  public let code: Int32
  public var description: String { "\(function): \(String(cString: mosquitto_strerror(code)))" }

  /// Throws unless `code` is `MOSQ_ERR_SUCCESS`.
  static func check(_ function: String, _ code: Int32) throws(MQTTError) {
    guard code == Int32(MOSQ_ERR_SUCCESS.rawValue) else { throw MQTTError(function: function, code: code) }
  }
}

/// One client connection to the broker, the only owner of its `struct mosquitto`. It runs on
/// libmosquitto's own thread (`mosquitto_loop_start`) once the first connection attempt got
/// going: until then its own thread tries (`mosquitto_connect_async`) with `Backoff` (1 s
/// doubling to 30 s), so a broker that is absent, refusing or unresolvable at start is found
/// when it comes (issue 22 item 2). After that libmosquitto reconnects by itself with the same
/// backoff after the broker or the network goes away, subscribes again on every connect, and
/// hands what happens to `handler` on that thread.
///
/// A message over `maximumPayload` bytes is dropped in the C callback, before any copy is made
/// (issue 22 item 4): the handler hears only its size and a bounded topic.
///
/// Synchronisation: libmosquitto's publish and subscribe calls are safe from any thread while
/// its loop thread runs; `state` says whether it runs and guards the pointer's end of life;
/// `attempt` is held by the connecting thread around each try and by `stop()` before it frees
/// the client, so no try is inside libmosquitto when the client goes.
public final class MQTTConnection: Sendable {
  /// What the connection reports, on libmosquitto's thread; the handler must not block.
  public enum Event: Sendable {
    case connected
    /// Lost or refused, with why; the connection tries again.
    case disconnected(String)
    /// A message; `retained` when the broker kept it from before this subscription.
    case message(topic: String, payload: [UInt8], retained: Bool)
    /// A message over the size limit, dropped unread: its topic (at most 128 bytes) and size.
    case dropped(topic: String, bytes: Int)
  }

  /// A message the broker publishes for this client if it goes away without saying goodbye.
  public struct Will: Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var retain: Bool
    public init(topic: String, payload: [UInt8], retain: Bool = true) {
      self.topic = topic
      self.payload = payload
      self.retain = retain
    }
  }

  /// The size above which a message is dropped by default: every PuckAlarm message is under
  /// 2 KB (a reader message with the longest health detail is about 1 KB).
  public static let defaultMaximumPayload = 4096
  /// The delays between connection attempts until the first one got going (libmosquitto's own
  /// reconnect delay, set in `init`, is the same: 1 s doubling to 30 s).
  public static let connectBackoff = Backoff(initial: .seconds(1), maximum: .seconds(30))

  /// `@unchecked`: an `OpaquePointer` is not `Sendable`, but libmosquitto documents
  /// `mosquitto_publish`, `mosquitto_subscribe` and `mosquitto_disconnect` as safe from any
  /// thread while `mosquitto_loop_start`'s thread runs; before it runs only the connecting
  /// thread uses the pointer (under `attempt`), and the pointer is freed only once, in
  /// `stop()`, after `state.stopped` is set under the lock every publish holds and the
  /// connecting thread's try is over.
  private struct Handle: @unchecked Sendable {
    /// Owned by this connection; freed once in `stop()`.
    let pointer: OpaquePointer
  }

  private struct State: Sendable {
    var started = false
    var stopped = false
    /// libmosquitto's loop thread runs (a connection attempt got going).
    var looping = false
    var backoff = MQTTConnection.connectBackoff
  }

  private let handle: Handle
  private let settings: BrokerSettings
  private let subscriptions: [String]
  private let maximumPayload: Int
  private let handler: @Sendable (Event) -> Void
  private let state = Mutex(State())
  private let attempt = Mutex(())
  private let connector: DeadlineThread?

  private static let libraryReady: Bool = {
    mosquitto_lib_init()
    return true
  }()

  /// A client whose ID is `clientIDPrefix` and a random part of its own
  /// (`randomClientID(prefix:)`), with a clean session: nothing is queued for it while it is
  /// away, so nothing old arrives after an outage.
  public init(
    clientIDPrefix: String, settings: BrokerSettings, will: Will? = nil, subscriptions: [String],
    maximumPayload: Int = MQTTConnection.defaultMaximumPayload,
    handler: @escaping @Sendable (Event) -> Void
  ) throws(MQTTError) {
    _ = Self.libraryReady
    guard let pointer = mosquitto_new(Self.randomClientID(prefix: clientIDPrefix), true, nil) else {
      throw MQTTError(function: "mosquitto_new", code: Int32(MOSQ_ERR_NOMEM.rawValue))
    }
    handle = Handle(pointer: pointer)
    self.settings = settings
    self.subscriptions = subscriptions
    self.maximumPayload = maximumPayload
    self.handler = handler
    connector = try? DeadlineThread()
    do throws(MQTTError) {
      if let username = settings.username {
        try MQTTError.check(
          "mosquitto_username_pw_set", mosquitto_username_pw_set(pointer, username, settings.password))
      }
      if let caFile = settings.caFile {
        try MQTTError.check("mosquitto_tls_set", mosquitto_tls_set(pointer, caFile, nil, nil, nil, nil))
      }
      if let will {
        try MQTTError.check(
          "mosquitto_will_set",
          mosquitto_will_set(pointer, will.topic, Int32(will.payload.count), will.payload, 1, will.retain))
      }
      try MQTTError.check(
        "mosquitto_reconnect_delay_set", mosquitto_reconnect_delay_set(pointer, 1, 30, true))
    } catch {
      mosquitto_destroy(pointer)
      throw error
    }
  }

  /// `prefix` and 16 hex digits, 64 bits from the kernel's generator (`SystemRandomNumberGenerator`
  /// reads `getrandom`), drawn anew for each connection, so at each start (docs/DESIGN.md M11).
  /// Mosquitto drops a connected client when another connects with its ID (session takeover)
  /// and publishes its last will: an ID anyone could derive, from what is published or from a
  /// fixed name, let any client of the broker cut the dock and the node off (issue 33). The ID
  /// is never published or logged. The prefix only names the client in the broker's log. With a
  /// 32-byte name the ID is past MQTT 3.1.1's 23-byte minimum, as it was before; Mosquitto takes
  /// up to 65,535 bytes.
  public static func randomClientID(prefix: String) -> String {
    var generator = SystemRandomNumberGenerator()
    let digits = String(generator.next() as UInt64, radix: 16)
    return prefix + String(repeating: "0", count: 16 - digits.utf8.count) + digits
  }

  /// Starts connecting in the background; the handler hears `.connected` once the broker
  /// answers. A broker that is not there yet is tried again and again.
  public func start() throws(MQTTError) {
    guard
      state.withLock({ state in
        defer { state.started = true }
        return !state.started && !state.stopped
      })
    else { return }
    let pointer = handle.pointer
    mosquitto_user_data_set(pointer, Unmanaged.passUnretained(self).toOpaque())
    mosquitto_connect_callback_set(pointer) { _, context, code in
      guard let context else { return }
      Unmanaged<MQTTConnection>.fromOpaque(context).takeUnretainedValue().connected(code: code)
    }
    mosquitto_disconnect_callback_set(pointer) { _, context, code in
      guard let context else { return }
      let connection = Unmanaged<MQTTConnection>.fromOpaque(context).takeUnretainedValue()
      connection.handler(.disconnected(String(cString: mosquitto_strerror(code))))
    }
    mosquitto_message_callback_set(pointer) { _, context, message in
      guard let context, let message, let topic = message.pointee.topic else { return }
      Unmanaged<MQTTConnection>.fromOpaque(context).takeUnretainedValue().received(
        message.pointee, topic: topic)
    }
    guard let connector else {
      // No thread of its own: one try here, and libmosquitto's loop from then on.
      _ = tryToConnect()
      return
    }
    do throws(GPIOError) {
      try connector.start { [weak self] in self?.tryToConnect() }
    } catch {
      throw MQTTError(function: "pthread_create", code: Int32(MOSQ_ERR_ERRNO.rawValue))
    }
  }

  /// One connection attempt (the connecting thread): on success libmosquitto's loop thread
  /// takes over and this thread is done (nil); otherwise the time of the next try.
  private func tryToConnect() -> MonotonicInstant? {
    let pointer = handle.pointer
    return attempt.withLock { _ -> MonotonicInstant? in
      guard !state.withLock({ $0.stopped || $0.looping }) else { return nil }
      // A broker that is down or unresolvable now is not an error: the next try may find it.
      let code = mosquitto_connect_async(pointer, settings.host, Int32(settings.port), 15)
      if code == Int32(MOSQ_ERR_SUCCESS.rawValue) {
        let started = state.withLock { state -> Int32? in
          guard !state.stopped else { return nil }
          let code = mosquitto_loop_start(pointer)
          state.looping = code == Int32(MOSQ_ERR_SUCCESS.rawValue)
          state.backoff.reset()
          return code
        }
        guard let started, started != Int32(MOSQ_ERR_SUCCESS.rawValue) else {
          connector?.stop()  // libmosquitto's loop reconnects from now on
          return nil
        }
        handler(.disconnected(MQTTError(function: "mosquitto_loop_start", code: started).description))
      } else {
        handler(.disconnected(MQTTError(function: "mosquitto_connect_async", code: code).description))
      }
      let delay = state.withLock { $0.backoff.delay() }
      return .now() + delay
    }
  }

  /// A message from libmosquitto's thread: dropped unread when over the limit, else copied.
  private func received(_ message: mosquitto_message, topic: UnsafeMutablePointer<CChar>) {
    let count = Int(message.payloadlen)
    // strnlen: a topic is bounded by the protocol (64 KB), and nothing here needs more.
    let topicLength = strnlen(topic, 257)
    guard count <= maximumPayload, topicLength <= 256 else {
      let shown = UnsafeRawBufferPointer(start: topic, count: min(topicLength, 128))
      handler(.dropped(topic: String(decoding: shown, as: UTF8.self), bytes: count))
      return
    }
    let payload = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
    handler(.message(topic: String(cString: topic), payload: payload, retained: message.retain))
  }

  private func connected(code: Int32) {
    guard code == 0 else {
      handler(.disconnected(String(cString: mosquitto_connack_string(code))))
      return
    }
    for topic in subscriptions { mosquitto_subscribe(handle.pointer, nil, topic, 1) }
    handler(.connected)
  }

  /// Publishes `payload` on `topic` at QoS 1; false if it could not even be queued (also
  /// before the first connection attempt got going).
  @discardableResult
  public func publish(_ topic: String, _ payload: [UInt8], retain: Bool = false) -> Bool {
    // Under the lock: `stop()` sets `stopped` under it before it frees the client, so no
    // publish from another thread is inside libmosquitto when the client goes.
    let pointer = handle.pointer
    return state.withLock { state in
      guard !state.stopped, state.looping else { return false }
      return mosquitto_publish(pointer, nil, topic, Int32(payload.count), payload, 1, retain)
        == Int32(MOSQ_ERR_SUCCESS.rawValue)
    }
  }

  /// Says goodbye (no last will), ends the loop thread and frees the client. Idempotent.
  public func stop() {
    let wasStopped = state.withLock { state in
      defer { state.stopped = true }
      return state.stopped
    }
    guard !wasStopped else { return }
    connector?.stop()
    // A try under way ends first (it sees `stopped` and starts no loop); none starts after.
    let looping = attempt.withLock { _ in state.withLock { $0.looping } }
    if looping {
      mosquitto_disconnect(handle.pointer)
      mosquitto_loop_stop(handle.pointer, false)
    }
    mosquitto_destroy(handle.pointer)
  }

  deinit { stop() }
}
