import Glibc
import PuckCore
import PuckSystem
import Synchronization

/// A reader on another machine (docs/DESIGN.md M1–M5): a reader node (`puck-reader`) polls
/// its own PN532 and publishes signed events through the MQTT broker; this side takes only
/// those signed with the reader's key, fresh and not seen before, and reports them like a
/// local reader. It tells the node when this dock wants polling (a signed, retained `want`,
/// repeated every `heartbeat`), and reports the node unreachable when its last will says so or
/// nothing signed came for `silence`.
///
/// Synchronisation: `Sendable` without `@unchecked`: the state is in a `Mutex`; libmosquitto's
/// thread and the heartbeat thread only lock it briefly; events are emitted outside the lock.
public final class RemoteTagReader: TagReader {
  public struct Configuration: Sendable {
    /// The reader's enrolled name (`kitchen`).
    public var name: String
    public var key: ReaderKey
    /// This dock's name, unique among the docks the node serves.
    public var dock: String
    public var broker: BrokerSettings
    /// How often the want is repeated (the node forgets a want after `RemoteSequence.window`).
    public var heartbeat: Duration = .seconds(10)
    /// No signed word from the node for this long: it is reported unreachable.
    public var silence: Duration = .seconds(30)
    /// What earlier runs took from this reader (docs/DESIGN.md M3): a scan they took is refused.
    public var seen = RemoteSequence()
    /// Saves what was taken, durably, after a scan is admitted and before it is reported, so
    /// no later run takes it again. Runs on libmosquitto's thread.
    public var remember: @Sendable (RemoteSequence) -> Void = { _ in }

    public init(name: String, key: ReaderKey, dock: String, broker: BrokerSettings) {
      self.name = name
      self.key = key
      self.dock = dock
      self.broker = broker
    }
  }

  private struct State: Sendable {
    var connection: MQTTConnection?
    var sequence = RemoteSequence()
    var polling = false
    var health: DeviceCondition
    /// When a signed message last came (CLOCK_MONOTONIC), nil before the first.
    var lastHeard: MonotonicInstant?
    var nodeHealth: DeviceCondition?
    var brokerProblem: String?
    var nodeOffline = false
    var stopped = false
    /// When the health last turned into a fault (CLOCK_MONOTONIC): status says for how long.
    var faultSince: MonotonicInstant?
    /// Refusals reported to the log at most once a minute per kind.
    var refusals = RepeatLimiter<RemoteMessageError.Reason, MonotonicInstant>()
  }

  private let configuration: Configuration
  private let onEvent: @Sendable (TagReaderEvent) -> Void
  private let wallMilliseconds: @Sendable () -> Int64
  private let boot = ReaderKey.randomID()
  private let state: Mutex<State>
  private let counter = MessageCounter()
  private let thread: DeadlineThread?

  /// A remote reader; nothing happens until `start()`. `wallMilliseconds` is the wall clock in
  /// Unix milliseconds (the freshness window is measured on it).
  public init(
    _ configuration: Configuration,
    wallMilliseconds: @escaping @Sendable () -> Int64 = RemoteTagReader.systemWallMilliseconds,
    onEvent: @escaping @Sendable (TagReaderEvent) -> Void
  ) {
    self.configuration = configuration
    self.onEvent = onEvent
    self.wallMilliseconds = wallMilliseconds
    state = Mutex(
      State(
        sequence: configuration.seen,
        health: DeviceCondition(
          .fault,
          "\(configuration.name): waiting for the reader node (broker \(configuration.broker.address))")))
    thread = try? DeadlineThread()
  }

  /// `CLOCK_REALTIME` in Unix milliseconds.
  @Sendable public static func systemWallMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
  }

  public func start() { start(after: nil) }

  public func start(after previous: (any TagReader)?) {
    previous?.requestStop()
    let name = configuration.name
    do throws(MQTTError) {
      let connection = try MQTTConnection(
        clientIDPrefix: "puckd-\(configuration.dock)-\(name)-", settings: configuration.broker,
        subscriptions: [RemoteTopic.events(name), RemoteTopic.presence(name)]
      ) { [weak self] event in self?.received(event) }
      state.withLock { $0.connection = connection }
      try connection.start()
    } catch {
      update { $0.brokerProblem = "\(error)" }
    }
    try? thread?.start { [weak self] in self?.tick() }
  }

  public func requestStop() {
    try? SystemThread.detach { [self] in self.stop() }
  }

  public func setEnabled(_ enabled: Bool) {
    state.withLock { $0.polling = enabled }
    publishWant()
  }

  public func checkHealth() {
    onEvent(.health(health))
  }

  public func checkProgress() -> DeviceCondition? { nil }

  /// The last health, with how long ago the node was heard, or how long the fault has lasted.
  public var health: DeviceCondition {
    let (health, lastHeard, faultSince) = state.withLock { ($0.health, $0.lastHeard, $0.faultSince) }
    if health.state == .ok, let lastHeard {
      return DeviceCondition(
        .ok, "\(health.detail) (heard \((MonotonicInstant.now() - lastHeard).components.seconds) s ago)")
    }
    guard health.state == .fault, let faultSince else { return health }
    return DeviceCondition(
      .fault, "\(health.detail) (for \((MonotonicInstant.now() - faultSince).components.seconds) s)")
  }

  public func stop() {
    let connection = state.withLock { state -> MQTTConnection? in
      guard !state.stopped else { return nil }
      state.stopped = true
      state.polling = false
      return state.connection
    }
    guard let connection else { return }
    thread?.stop()
    publishWant(on: connection)
    connection.stop()
  }

  // MARK: - Both threads

  private func received(_ event: MQTTConnection.Event) {
    switch event {
    case .connected:
      update { $0.brokerProblem = nil }
      publishWant()
    case .disconnected(let why):
      update { $0.brokerProblem = why }
    case .message(let topic, let payload, _):
      if topic == RemoteTopic.presence(configuration.name) {
        takePresence(payload, topic: topic)
      } else {
        take(payload, topic: topic)
      }
    case .dropped(_, let bytes):
      refuse(.oversized(bytes: bytes))
    }
  }

  private func take(_ payload: [UInt8], topic: String) {
    let key = configuration.key
    let name = configuration.name
    let message: RemoteMessage
    do throws(RemoteMessageError) {
      message = try RemoteFrame.open(payload, from: name, on: topic, verify: key.verify)
      // A want is a dock's; a last will counts only on the presence topic.
      guard message.kind != .want, message.kind != .offline else { return }
      let now = wallMilliseconds()
      let admitted = state.withLock { state -> Result<RemoteSequence, RemoteMessageError> in
        do throws(RemoteMessageError) {
          try state.sequence.admit(message, now: now)
          return .success(state.sequence)
        } catch {
          return .failure(error)
        }
      }
      let taken = try admitted.get()
      // On disk before anyone acts on it: a scan is taken at most once, across restarts.
      if message.kind == .arrived { configuration.remember(taken) }
    } catch {
      refuse(error)
      return
    }
    update { state in
      state.lastHeard = .now()
      state.nodeOffline = false
      if message.kind == .health {
        // Signed, yet bounded: status and the log show it.
        state.nodeHealth = DeviceCondition(
          message.state == "ok" ? .ok : .fault, LogText.bounded(message.detail ?? "", limit: 200))
      }
    }
    switch message.kind {
    case .arrived:
      guard let uid = message.uid else { return }
      onEvent(.scanned(uid, fresh: message.fresh ?? false))
    case .removed: onEvent(.removed)
    case .health, .want, .offline: break
    }
  }

  /// The presence topic: only the node's signed last will, for the boot last heard from, marks
  /// it offline (docs/DESIGN.md M5). Anyone may publish there; plain `online`/`offline` text
  /// (the node's own `online`, for people) changes nothing.
  private func takePresence(_ payload: [UInt8], topic: String) {
    guard payload != Array("online".utf8), payload != Array("offline".utf8) else { return }
    let message: RemoteMessage
    do throws(RemoteMessageError) {
      message = try RemoteFrame.open(
        payload, from: configuration.name, on: topic, verify: configuration.key.verify)
    } catch {
      refuse(error)
      return
    }
    guard message.kind == .offline else { return }
    update { state in
      guard let boot = state.sequence.currentBoot, boot == message.boot else { return }
      state.nodeOffline = true
    }
  }

  /// Reports a refused message, at most once a minute for each kind of refusal, with how many
  /// more of its kind came meanwhile: a flood writes a line a minute, not a line a message.
  private func refuse(_ error: RemoteMessageError) {
    let now = MonotonicInstant.now()
    guard let heldBack = state.withLock({ $0.refusals.admit(error.reason, now: now) }) else { return }
    let why =
      heldBack == 0 ? error.description : "\(error) (and \(heldBack) more like it since the last report)"
    // A redelivery after a reconnect is routine, and logged as such; anything else may be an
    // attack.
    onEvent(error.reason == .redelivered ? .redelivered(why) : .rejected(why))
  }

  /// The heartbeat thread: repeats the want and notices silence.
  private func tick() -> MonotonicInstant? {
    publishWant()
    update { _ in }
    return .now() + configuration.heartbeat
  }

  private func publishWant(on given: MQTTConnection? = nil) {
    // Numbered, signed and queued in one step (`MessageCounter`), with the wish read under the
    // counter: a higher counter never carries an older wish.
    counter.next { seq in
      let (connection, poll) = state.withLock { state in
        (given ?? (state.stopped ? nil : state.connection), state.polling)
      }
      guard let connection else { return }
      var message = RemoteMessage(
        reader: configuration.name, boot: boot, seq: seq, sentAt: wallMilliseconds(), kind: .want)
      message.dock = configuration.dock
      message.poll = poll
      let key = configuration.key
      connection.publish(
        RemoteTopic.want(configuration.name, dock: configuration.dock),
        RemoteFrame.seal(message, sign: key.sign),
        retain: true)
    }
  }

  /// Changes the state and recomputes the health; reports it when it changed.
  private func update(_ change: (inout State) -> Void) {
    let name = configuration.name
    let silence = configuration.silence
    let broker = configuration.broker.address
    let changed = state.withLock { state -> DeviceCondition? in
      change(&state)
      let health: DeviceCondition
      if let problem = state.brokerProblem {
        health = DeviceCondition(.fault, "\(name): cannot reach the MQTT broker \(broker): \(problem)")
      } else if state.nodeOffline {
        health = DeviceCondition(
          .fault, "\(name): the reader node is offline (its last will); check its power and Wi-Fi")
      } else if let lastHeard = state.lastHeard, MonotonicInstant.now() - lastHeard > silence {
        health = DeviceCondition(
          .fault,
          "\(name): no word from the reader node for over \(silence.components.seconds) s; check its power and Wi-Fi"
        )
      } else if let node = state.nodeHealth {
        health = DeviceCondition(node.state, "\(name): \(node.detail)")
      } else {
        health = state.health
      }
      guard health != state.health else { return nil }
      if health.state != .fault {
        state.faultSince = nil
      } else if state.health.state != .fault || state.faultSince == nil {
        state.faultSince = .now()
      }
      state.health = health
      return health
    }
    if let changed { onEvent(.health(changed)) }
  }
}
