import PuckCore
import PuckDevices
import PuckStorage
import PuckSystem

/// The dock in Home Assistant (docs/DESIGN.md M7), when `[homeassistant] enabled`: MQTT
/// discovery for its entities (`HomeAssistantDiscovery`), sent again whenever Home Assistant
/// announces itself; the retained state document on every status change; wake-up events; each
/// reader's scans as tag IDs that are keyed hashes of the UID (HMAC-SHA256 under a dock-local
/// secret, `homeassistant-tag.key`), never the UID. The one command it takes is the bypass
/// button, which silences and re-arms as the dock button does, but only as `[homeassistant]`'s
/// bypass policy allows (docs/DESIGN.md M9); a retained or repeated press is no press. Nothing
/// from Home Assistant can end a wake-up. The pre-alarm for wake-up lights (docs/DESIGN.md M10)
/// goes out on a wall-clock timer of its own, when `PreAlarmPlan` says; it only tells.
final class HomeAssistantBridge {
  /// What arrives from the broker, posted to the loop.
  enum Command: Sendable {
    /// Connected, or Home Assistant said `online`: send discovery and state again.
    case announce
    /// `PRESS` on the bypass topic; `retained` when the broker kept it from before.
    case bypass(retained: Bool)
    /// The broker keeps a scanner config of this dock's reader `name` (sent at each
    /// subscription): deleted when no such reader is enrolled any more.
    case scanner(String)
  }

  private let dock: DockContext
  private var connection: MQTTConnection?
  private var discovery: HomeAssistantDiscovery?
  private var tagKey: ReaderKey?
  private var state = HomeAssistantState()
  private var published: [UInt8]?
  /// The timestamps last published on their own topics, by key.
  private var publishedTimestamps: [String: String] = [:]
  private var readers: [String] = []
  /// Which bypass commands are presses (retained and repeated ones are not).
  private var presses = NetworkPressFilter<MonotonicInstant>()
  /// What the log and Home Assistant hear of ignored and refused presses: a flood writes a
  /// line a minute per kind.
  private var reports = RepeatLimiter<String, MonotonicInstant>()
  /// When the pre-alarm goes out, once per alarm.
  private var plan = PreAlarmPlan(lead: .seconds(30 * 60))
  /// The next alarm, as the last status had it.
  private var nextAlarm: (alarm: Alarm, at: Instant)?
  /// Wakes the loop at the next pre-alarm (and at clock steps); watched while connected.
  private var preAlarmTimer: TimerHandle?
  /// The bypass button was pressed in Home Assistant: returns why it did not count, nil when it
  /// silenced the ring.
  @Wired("HomeAssistantBridge.onBypass") var onBypass: () -> NetworkBypassRefusal?

  init(dock: DockContext) {
    self.dock = dock
  }

  /// Connects when enabled (start-up, and a reload that changed `[homeassistant]` or `[mqtt]`).
  func start(readers: [String]) {
    stop()
    let config = dock.settings.config
    guard config.homeAssistant.enabled else { return }
    self.readers = readers
    tagKey = loadTagKey()
    if plan.lead != config.homeAssistant.preAlarm { plan = PreAlarmPlan(lead: config.homeAssistant.preAlarm) }
    let made = HomeAssistantDiscovery(
      dock: dock.settings.dockName, prefix: config.homeAssistant.discoveryPrefix, readers: readers,
      version: ProductVersion.current)
    discovery = made
    let inbox = dock.loop.inbox
    do {
      let broker = try dock.settings.broker()
      let address = broker.address
      let connection = try MQTTConnection(
        clientIDPrefix: "puckd-\(made.dock)-homeassistant-", settings: broker,
        will: .init(topic: made.availabilityTopic, payload: Array("offline".utf8)),
        subscriptions: [made.homeAssistantStatusTopic, made.bypassTopic, made.scannerConfigsTopic]
      ) { event in
        switch event {
        case .connected: inbox.post(.homeAssistant(.announce))
        case .disconnected(let why): Log.warning("Home Assistant: broker \(address): \(why)")
        case .message(let topic, let payload, let retained):
          if topic == made.bypassTopic, payload == Array("PRESS".utf8) {
            inbox.post(.homeAssistant(.bypass(retained: retained)), ifFewerThan: LoopMessage.networkBacklog)
          } else if topic == made.homeAssistantStatusTopic, payload == Array("online".utf8) {
            inbox.post(.homeAssistant(.announce), ifFewerThan: LoopMessage.networkBacklog)
          } else if retained, let reader = made.scannerReader(topic: topic, payload: payload) {
            inbox.post(.homeAssistant(.scanner(reader)), ifFewerThan: LoopMessage.networkBacklog)
          }
        case .dropped:
          // Nothing Home Assistant sends is near the limit; the message is not read.
          break
        }
      }
      self.connection = connection
      try connection.start()
      try makePreAlarmTimer()
      planPreAlarm()
      Log.info(
        "Home Assistant: publishing the dock as '\(made.dock)' through \(address)")
    } catch {
      Log.error("Home Assistant: \(error)")
    }
  }

  func received(_ command: Command) {
    switch command {
    case .announce:
      guard let connection, let discovery else { return }
      connection.publish(discovery.availabilityTopic, Array("online".utf8), retain: true)
      for message in discovery.messages { connection.publish(message.topic, message.payload, retain: true) }
      published = nil
      publishedTimestamps = [:]
      publishState()
      planPreAlarm()
    case .scanner(let reader):
      guard let connection, let discovery, !discovery.readers.contains(reader) else { return }
      if connection.publish(discovery.scannerConfigTopic(reader), [], retain: true) {
        Log.info("Home Assistant: removed the tag scanner of reader '\(reader)', which is no longer enrolled")
      }
    case .bypass(let retained):
      let topic = discovery?.bypassTopic ?? "the bypass topic"
      switch presses.admit(retained: retained, now: dock.time.monotonicNow()) {
      case .retained:
        report("retained") {
          Log.warning(
            "Home Assistant: ignored a retained PRESS on \(topic): a command the broker kept is not a press "
              + "(clear it with: mosquitto_pub -r -n -t \(topic))\($0)")
        }
      case .repeated:
        report("repeated") {
          Log.info("Home Assistant: ignored a repeated PRESS (the same press again)\($0)")
        }
      case .press:
        guard let refusal = onBypass() else {
          Log.notice(
            "Home Assistant: bypass pressed: the ring is silenced and comes back after the retry delay")
          return
        }
        report("refused \(refusal.kind)") {
          Log.warning("Home Assistant: bypass refused: \(refusal)\($0)")
          event(.bypassRefused)
        }
      }
    }
  }

  /// Runs `write` with what to add to its log line (how many like it were held back), at most
  /// once a minute for each `kind`.
  private func report(_ kind: String, _ write: (String) -> Void) {
    reports.report(kind, now: dock.time.monotonicNow(), write)
  }

  /// The readers changed (one enrolled or removed): their tag scanners with them, over the
  /// connection there is (a reconnect would show the dock unavailable for a moment, and the
  /// new scanner only once the broker took the new session). A removed reader's scanner is
  /// deleted from Home Assistant with an empty retained config. Disconnected, the announce on
  /// the next connection publishes the new set, and the scanners the broker still keeps of
  /// readers gone (sent at each subscription, after a restart too) are deleted as they come.
  func readersChanged(_ names: [String]) {
    guard let connection, let old = discovery, names != readers else { return }
    let made = HomeAssistantDiscovery(
      dock: old.dock, prefix: old.prefix, readers: names, version: old.version)
    discovery = made
    readers = names
    let before = Dictionary(old.messages.map { ($0.topic, $0.payload) }) { first, _ in first }
    let after = Set(made.messages.map(\.topic))
    for topic in before.keys.sorted() where !after.contains(topic) {
      connection.publish(topic, [], retain: true)
    }
    for message in made.messages where before[message.topic] != message.payload {
      connection.publish(message.topic, message.payload, retain: true)
    }
  }

  /// Takes the state Home Assistant shows from a status, the next alarm and the open wake-ups,
  /// publishes it when it changed, and sends or plans the pre-alarm.
  func statusChanged(_ status: DockStatus, next: (alarm: Alarm, at: Instant)?, wakeUps: [WakeGuard]) {
    nextAlarm = next
    state.nextAlarm = next?.at
    state.nextAlarmLabel = next?.alarm.label
    state.wakeUpLabel = (wakeUps.first(where: \.isRinging) ?? wakeUps.first)?.occurrence.label
    let alarms = dock.state.alarms.alarms.map { alarm in
      HomeAssistantState.ListedAlarm(
        id: alarm.id, time: alarm.time.description, label: alarm.label, enabled: alarm.enabled)
    }
    // Encoded again only when the list changed.
    if alarms != state.alarms { state.alarms = alarms }
    state.preAlarm = next.map { plan.preAlarm(of: $0.at) }
    state.ringing = status.guards.contains { $0.ringing }
    state.open = !status.guards.isEmpty
    state.protected = status.protected
    state.bypasses = status.guards.reduce(0) { $0 + $1.bypassCount }
    publishState()
    planPreAlarm()
  }

  /// Makes the pre-alarm's timer on the loop, unless there is one already (`stop()` cancels it).
  private func makePreAlarmTimer() throws(SystemError) {
    guard preAlarmTimer == nil else { return }
    preAlarmTimer = try dock.loop.timer(.wallClock) { [unowned self] _ in self.planPreAlarm() }
  }

  /// Sends the pre-alarm when it is due, and arms the timer for the next one.
  private func planPreAlarm() {
    guard let timer = preAlarmTimer else { return }
    switch plan.step(nextAlarm: nextAlarm?.at, now: dock.time.instant) {
    case .publish(let alarm):
      timer.disarm()
      let label = nextAlarm?.alarm.label ?? ""
      let sent =
        connection.flatMap { connection in
          discovery.map { discovery in
            connection.publish(
              discovery.eventTopic,
              HomeAssistantEvent.preAlarm.payload([
                "alarm": .string(alarm.codingText), "label": .string(label),
              ]))
          }
        } ?? false
      if sent {
        Log.info("Home Assistant: pre-alarm sent for the alarm \(dock.settings.describe(alarm))")
      } else {
        // Sent when the broker is back (announce), if that is before the alarm.
        plan.notSent(alarm: alarm)
        report("pre-alarm not sent") {
          Log.warning(
            "Home Assistant: the pre-alarm for the alarm \(dock.settings.describe(alarm)) is not sent yet: "
              + "the broker is not connected\($0)")
        }
      }
    case .wait(let until):
      do {
        try timer.arm(at: until)
      } catch {
        Log.error("Home Assistant: the pre-alarm timer: \(error)")
      }
    case .idle:
      timer.disarm()
    }
  }

  func event(_ event: HomeAssistantEvent) {
    if event == .resolved { state.lastWakeUp = dock.time.instant }
    guard let connection, let discovery else { return }
    connection.publish(discovery.eventTopic, event.payload)
    publishState()
  }

  /// A tag on `reader`: its keyed hash goes to Home Assistant's tag scanner, never the UID.
  func tagScanned(_ uid: TagUID, reader: String) {
    guard let connection, let discovery, let tagKey else { return }
    connection.publish(
      discovery.tagTopic(reader), Array(RemoteFrame.hex(tagKey.sign(uid.bytes)).prefix(16).utf8))
  }

  func stop() {
    guard let connection, let discovery else { return }
    connection.publish(discovery.availabilityTopic, Array("offline".utf8), retain: true)
    connection.stop()
    self.connection = nil
    preAlarmTimer?.cancel()
    preAlarmTimer = nil
  }

  private func publishState() {
    guard let connection, let discovery else { return }
    // Each timestamp before the document that makes its sensor available.
    for (key, text) in state.timestamps {
      guard let text, publishedTimestamps[key] != text else { continue }
      if connection.publish(discovery.timestampTopic(key), Array(text.utf8), retain: true) {
        publishedTimestamps[key] = text
      }
    }
    let payload = state.payload
    guard payload != published else { return }
    if connection.publish(discovery.stateTopic, payload, retain: true) { published = payload }
  }

  /// The dock-local secret tag IDs are hashed with: made once, root-only, kept.
  private func loadTagKey() -> ReaderKey? {
    let path = dock.state.files.directory.filePath("homeassistant-tag.key")
    do {
      if let text = try ReaderKeyFiles.readNodeKey(path), let key = ReaderKey(hex: text) { return key }
      guard let key = ReaderKey.generate() else { return nil }
      try DurableFile.create(Array((key.hex + "\n").utf8), at: path, mode: 0o600)
      return key
    } catch {
      Log.error("Home Assistant: tag IDs are not sent: \(error)")
      return nil
    }
  }
}
