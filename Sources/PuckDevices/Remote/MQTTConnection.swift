import CMosquitto
import Glibc
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
/// libmosquitto's own thread (`mosquitto_loop_start`): connects in the background, reconnects by
/// itself with backoff (1 s doubling to 30 s) after the broker or the network goes away,
/// subscribes again on every connect, and hands what happens to `handler` on that thread.
///
/// Synchronisation: libmosquitto's publish and subscribe calls are safe from any thread while
/// its loop thread runs; `stopped` guards the pointer's end of life.
public final class MQTTConnection: Sendable {
  /// What the connection reports, on libmosquitto's thread; the handler must not block.
  public enum Event: Sendable {
    case connected
    /// Lost or refused, with why; libmosquitto tries again.
    case disconnected(String)
    case message(topic: String, payload: [UInt8])
  }

  /// A message the broker publishes for this client if it goes away without saying goodbye.
  public struct Will: Sendable {
    public var topic: String
    public var payload: [UInt8]
    public init(topic: String, payload: [UInt8]) {
      self.topic = topic
      self.payload = payload
    }
  }

  /// `@unchecked`: an `OpaquePointer` is not `Sendable`, but libmosquitto documents
  /// `mosquitto_publish`, `mosquitto_subscribe` and `mosquitto_disconnect` as safe from any
  /// thread while `mosquitto_loop_start`'s thread runs, and the pointer is freed only once, in
  /// `stop()`, after `state.stopped` is set under the lock every publish holds.
  private struct Handle: @unchecked Sendable {
    /// Owned by this connection; freed once in `stop()`.
    let pointer: OpaquePointer
  }

  private let handle: Handle
  private let settings: BrokerSettings
  private let subscriptions: [String]
  private let handler: @Sendable (Event) -> Void
  private let state = Mutex<(started: Bool, stopped: Bool)>((false, false))

  private static let libraryReady: Bool = {
    mosquitto_lib_init()
    return true
  }()

  /// A client named `clientID` (unique on the broker), with a clean session: nothing is queued
  /// for it while it is away, so nothing old arrives after an outage.
  public init(
    clientID: String, settings: BrokerSettings, will: Will? = nil, subscriptions: [String],
    handler: @escaping @Sendable (Event) -> Void
  ) throws(MQTTError) {
    _ = Self.libraryReady
    guard let pointer = mosquitto_new(clientID, true, nil) else {
      throw MQTTError(function: "mosquitto_new", code: Int32(MOSQ_ERR_NOMEM.rawValue))
    }
    handle = Handle(pointer: pointer)
    self.settings = settings
    self.subscriptions = subscriptions
    self.handler = handler
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
          mosquitto_will_set(pointer, will.topic, Int32(will.payload.count), will.payload, 1, true))
      }
      try MQTTError.check(
        "mosquitto_reconnect_delay_set", mosquitto_reconnect_delay_set(pointer, 1, 30, true))
    } catch {
      mosquitto_destroy(pointer)
      throw error
    }
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
      let count = Int(message.pointee.payloadlen)
      let payload =
        message.pointee.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
      Unmanaged<MQTTConnection>.fromOpaque(context).takeUnretainedValue()
        .handler(.message(topic: String(cString: topic), payload: payload))
    }
    // A broker that is down now is not an error: the loop thread keeps trying.
    let code = mosquitto_connect_async(pointer, settings.host, Int32(settings.port), 15)
    if code != Int32(MOSQ_ERR_SUCCESS.rawValue) {
      handler(.disconnected(MQTTError(function: "mosquitto_connect_async", code: code).description))
    }
    try MQTTError.check("mosquitto_loop_start", mosquitto_loop_start(pointer))
  }

  private func connected(code: Int32) {
    guard code == 0 else {
      handler(.disconnected(String(cString: mosquitto_connack_string(code))))
      return
    }
    for topic in subscriptions { mosquitto_subscribe(handle.pointer, nil, topic, 1) }
    handler(.connected)
  }

  /// Publishes `payload` on `topic` at QoS 1; false if it could not even be queued.
  @discardableResult
  public func publish(_ topic: String, _ payload: [UInt8], retain: Bool = false) -> Bool {
    // Under the lock: `stop()` sets `stopped` under it before it frees the client, so no
    // publish from another thread is inside libmosquitto when the client goes.
    let pointer = handle.pointer
    return state.withLock { state in
      guard !state.stopped else { return false }
      return mosquitto_publish(pointer, nil, topic, Int32(payload.count), payload, 1, retain)
        == Int32(MOSQ_ERR_SUCCESS.rawValue)
    }
  }

  /// Says goodbye (no last will), ends the loop thread and frees the client. Idempotent.
  public func stop() {
    let (started, wasStopped) = state.withLock { state in
      defer { state.stopped = true }
      return (state.started, state.stopped)
    }
    guard !wasStopped else { return }
    if started {
      mosquitto_disconnect(handle.pointer)
      mosquitto_loop_stop(handle.pointer, false)
    }
    mosquitto_destroy(handle.pointer)
  }

  deinit { stop() }
}
