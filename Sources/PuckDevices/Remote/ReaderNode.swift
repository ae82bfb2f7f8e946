import PuckCore
import PuckSystem
import Synchronization

/// The reader node's work (`puck-reader`, docs/DESIGN.md M1–M5): the same libnfc reader as the
/// dock's, with its field off until some dock it serves wants it (a signed `want`, repeated by
/// the dock and forgotten after `RemoteSequence.window`), and every arrival, removal and health
/// change published signed with the reader's key. A heartbeat repeats the health every
/// `heartbeat`; the broker publishes the node's last will (`offline`) if it vanishes.
///
/// Synchronisation: `Sendable` without `@unchecked`: the state is in a `Mutex`, taken briefly
/// from libmosquitto's thread, the reader's thread and the heartbeat thread.
public final class ReaderNode: Sendable {
  public struct Configuration: Sendable {
    public var name: String
    public var key: ReaderKey
    public var broker: BrokerSettings
    /// The libnfc connstring; nil: the first reader libnfc finds.
    public var connstring: String?
    public var heartbeat: Duration = .seconds(10)
    /// How often the reader polls while a dock wants it: the dock's own default (`[reader]
    /// poll_interval`, 30 ms), so a tag is seen as fast in the kitchen as at the bedside, not
    /// `NFCTagReader`'s 100 ms (issue 22).
    public var pollInterval: Duration = ReaderSettings.defaultPollInterval

    public init(name: String, key: ReaderKey, broker: BrokerSettings, connstring: String?) {
      self.name = name
      self.key = key
      self.broker = broker
      self.connstring = connstring
    }
  }

  private struct Want: Sendable {
    var sequence = RemoteSequence()
    var poll = false
    var heardAt = MonotonicInstant.now()
  }

  private struct State: Sendable {
    var wants: [String: Want] = [:]
    var polling = false
    var health = DeviceCondition(.fault, "the reader has not been opened yet")
    /// Refusals logged at most once a minute per kind.
    var refusals = RepeatLimiter<RemoteMessageError.Reason, MonotonicInstant>()
  }

  private let configuration: Configuration
  private let boot = ReaderKey.randomID()
  private let state = Mutex(State())
  private let counter = MessageCounter()
  private let log: @Sendable (_ level: Int, _ message: String) -> Void
  private let wallMilliseconds: @Sendable () -> Int64
  private let connection: MQTTConnection
  private let readerBox = Mutex<(any TagReader)?>(nil)
  private let thread: DeadlineThread?

  /// A node; `makeReader` makes its tag reader (libnfc's by default) from the connstring and
  /// poll interval, `log` takes syslog levels.
  public init(
    _ configuration: Configuration,
    makeReader:
      @escaping @Sendable (NFCTagReader.Configuration, @escaping @Sendable (TagReaderEvent) -> Void) ->
      any TagReader =
      {
        NFCTagReader(configuration: $0, onEvent: $1)
      },
    wallMilliseconds: @escaping @Sendable () -> Int64 = RemoteTagReader.systemWallMilliseconds,
    log: @escaping @Sendable (Int, String) -> Void
  ) throws(MQTTError) {
    self.configuration = configuration
    self.log = log
    self.wallMilliseconds = wallMilliseconds
    let name = configuration.name
    let box = Mutex<ReaderNode?>(nil)
    connection = try MQTTConnection(
      clientIDPrefix: "puck-reader-\(name)-", settings: configuration.broker,
      will: .init(
        topic: RemoteTopic.presence(name),
        payload: Self.lastWill(name: name, boot: boot, key: configuration.key, at: wallMilliseconds())),
      subscriptions: [RemoteTopic.wants(name)]
    ) { event in box.withLock { $0 }?.received(event) }
    thread = try? DeadlineThread()
    box.withLock { $0 = self }
    let reader = makeReader(
      NFCTagReader.Configuration(
        connstring: configuration.connstring, pollInterval: configuration.pollInterval)
    ) { [weak self] event in self?.readerSaid(event) }
    readerBox.withLock { $0 = reader }
  }

  /// Opens the reader and connects to the broker.
  public func start() throws(MQTTError) {
    readerBox.withLock { $0 }?.start()
    try connection.start()
    try? thread?.start { [weak self] in self?.tick() }
  }

  /// The signed `offline` the broker publishes when the node vanishes: signed now, so a dock
  /// can tell it from anyone's `offline`, and bound to this boot, so an old one means nothing.
  private static func lastWill(name: String, boot: String, key: ReaderKey, at now: Int64) -> [UInt8] {
    RemoteFrame.seal(
      RemoteMessage(reader: name, boot: boot, seq: 0, sentAt: now, kind: .offline), sign: key.sign)
  }

  /// Marks the node offline, closes the connection and the reader.
  public func stop() {
    thread?.stop()
    connection.publish(
      RemoteTopic.presence(configuration.name),
      Self.lastWill(name: configuration.name, boot: boot, key: configuration.key, at: wallMilliseconds()),
      retain: true)
    connection.stop()
    readerBox.withLock { $0 }?.stop()
  }

  /// Whether some dock wants the field on now.
  public var isPolling: Bool { state.withLock { $0.polling } }

  private func received(_ event: MQTTConnection.Event) {
    switch event {
    case .connected:
      log(5, "connected to the broker \(configuration.broker.address)")
      connection.publish(RemoteTopic.presence(configuration.name), Array("online".utf8), retain: true)
      publishHealth()
    case .disconnected(let why):
      log(3, "broker \(configuration.broker.address): \(why); trying again")
    case .message(let topic, let payload, _):
      takeWant(payload, topic: topic)
    case .dropped(_, let bytes):
      refuse(.oversized(bytes: bytes))
    }
  }

  private func takeWant(_ payload: [UInt8], topic: String) {
    let key = configuration.key
    let name = configuration.name
    do throws(RemoteMessageError) {
      // The topic names the dock; the message, signed, must name the same one.
      guard let topicDock = RemoteTopic.dock(inWant: topic, of: name) else { return }
      let message = try RemoteFrame.open(payload, from: name, on: topic, verify: key.verify)
      guard message.kind == .want, let dock = message.dock, dock == topicDock else { return }
      let now = wallMilliseconds()
      let refusal = state.withLock { state -> RemoteMessageError? in
        var want = state.wants[dock] ?? Want()
        do throws(RemoteMessageError) {
          try want.sequence.admit(message, now: now)
        } catch {
          return error
        }
        want.poll = message.poll ?? false
        want.heardAt = .now()
        state.wants[dock] = want
        return nil
      }
      if let refusal { throw refusal }
    } catch {
      // A retained want from before a restart is stale by design; only say so at debug level.
      if case .stale = error { return }
      refuse(error)
    }
    applyPolling()
  }

  /// Logs a refused message, at most once a minute for each kind of refusal.
  private func refuse(_ error: RemoteMessageError) {
    let now = MonotonicInstant.now()
    guard let heldBack = state.withLock({ $0.refusals.admit(error.reason, now: now) }) else { return }
    // A redelivery after a reconnect is routine; anything else may be an attack.
    log(
      error.reason == .redelivered ? 6 : 4,
      "refused a message: \(error)\(heldBack == 0 ? "" : " (and \(heldBack) more like it since the last report)")"
    )
  }

  /// The field is on while any dock's fresh want says so.
  private func applyPolling() {
    let window = Duration.milliseconds(RemoteSequence.window)
    let (changed, polling) = state.withLock { state -> (Bool, Bool) in
      let polling = state.wants.values.contains { $0.poll && MonotonicInstant.now() - $0.heardAt <= window }
      defer { state.polling = polling }
      return (polling != state.polling, polling)
    }
    guard changed else { return }
    log(6, polling ? "a dock wants the reader: polling" : "no dock wants the reader: field off")
    readerBox.withLock { $0 }?.setEnabled(polling)
  }

  private func readerSaid(_ event: TagReaderEvent) {
    switch event {
    case .scanned(let uid, let fresh):
      log(6, "tag \(uid.masked)\(fresh ? "" : " (was already on the reader)")")
      publish(.arrived) { message in
        message.uid = uid
        message.fresh = fresh
      }
    case .removed:
      publish(.removed) { _ in }
    case .health(let condition):
      let changed = state.withLock { state in
        defer { state.health = condition }
        return state.health != condition
      }
      if changed { log(condition.state == .ok ? 5 : 3, "reader: \(condition.detail)") }
      publishHealth()
    case .rejected, .redelivered: break
    }
  }

  private func publishHealth() {
    let health = state.withLock { $0.health }
    publish(.health) { message in
      message.state = health.state == .ok ? "ok" : "fault"
      message.detail = String(health.detail.prefix(1000))  // the frame stays under RemoteFrame.maximumSize
    }
  }

  /// Numbers, signs and queues one message in a single step (`MessageCounter`).
  private func publish(_ kind: RemoteMessage.Kind, _ fill: (inout RemoteMessage) -> Void) {
    let key = configuration.key
    counter.next { seq in
      var message = RemoteMessage(
        reader: configuration.name, boot: boot, seq: seq, sentAt: wallMilliseconds(), kind: kind)
      fill(&message)
      connection.publish(RemoteTopic.events(configuration.name), RemoteFrame.seal(message, sign: key.sign))
    }
  }

  private func tick() -> MonotonicInstant? {
    applyPolling()
    publishHealth()
    return .now() + configuration.heartbeat
  }
}
