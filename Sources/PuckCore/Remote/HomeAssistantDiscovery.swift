// JSON is pure computation; FoundationEssentials has the codecs without Foundation's I/O.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What the dock tells Home Assistant through MQTT discovery (docs/DESIGN.md M7): one retained
/// config message per entity, a retained state document the entities read their values from,
/// the availability topic, wake-up events, and each reader as a tag scanner. Pure: the bridge in
/// the daemon publishes what this builds.
public struct HomeAssistantDiscovery: Sendable {
  /// The dock's name (`[mqtt] dock_name`).
  public let dock: String
  /// Home Assistant's discovery prefix.
  public let prefix: String
  /// The readers that scan tags: `dock` for the dock's own, and the remote readers' names.
  public let readers: [String]
  public let version: String

  public init(dock: String, prefix: String, readers: [String], version: String) {
    self.dock = dock
    self.prefix = prefix
    self.readers = readers
    self.version = version
  }

  private var base: String { "puckalarm/dock/\(dock)" }
  /// `online` (retained) while the dock is connected; `offline`, its last will.
  public var availabilityTopic: String { base + "/availability" }
  /// The retained state document (`HomeAssistantState`).
  public var stateTopic: String { base + "/state" }
  /// Wake-up events: `{"event_type": "fired"}`.
  public var eventTopic: String { base + "/event" }
  /// The bypass button's command topic (payload `PRESS`).
  public var bypassTopic: String { base + "/bypass" }
  /// The timestamp of `key` (`next_alarm`, `pre_alarm`, `last_wake_up`) on a topic of its own, retained,
  /// published only while there is one. Home Assistant's timestamp sensor warns at every
  /// message that is not a time ("Invalid state message" for `null`, `None` or an empty
  /// string), so "no value" is said by availability instead: the sensor is unavailable while
  /// the state document's `key` is null.
  public func timestampTopic(_ key: String) -> String { base + "/\(key)" }
  /// Where reader `name` publishes the keyed hash of each tag it sees.
  public func tagTopic(_ reader: String) -> String { base + "/tag/\(reader)" }
  /// Home Assistant announces itself here (`online`): discovery is sent again.
  public var homeAssistantStatusTopic: String { prefix + "/status" }
  /// Reader `name`'s tag scanner config.
  public func scannerConfigTopic(_ reader: String) -> String {
    "\(prefix)/tag/puckalarm_\(dock)_\(reader)/config"
  }
  /// Every scanner config in the home, of every dock and integration: the bridge subscribes to
  /// find the retained ones of readers this dock no longer has.
  public var scannerConfigsTopic: String { "\(prefix)/tag/+/config" }

  /// The reader whose scanner a config on `topic` announces, if it is one of this dock's,
  /// enrolled or not: both the topic and the tag topic in the payload must name this dock (a
  /// dock called `bedroom_x` has topics that begin as `bedroom`'s do), and the name must be a
  /// reader's. Nil for anything else.
  public func scannerReader(topic: String, payload: [UInt8]) -> String? {
    struct Config: Decodable { let topic: String }
    let tags = tagTopic("")
    guard topic.hasPrefix("\(prefix)/tag/puckalarm_\(dock)_"),
      let config = try? JSONDecoder().decode(Config.self, from: Data(payload)), config.topic.hasPrefix(tags)
    else { return nil }
    let reader = String(config.topic.dropFirst(tags.count))
    return RemoteTopic.isValidName(reader) && topic == scannerConfigTopic(reader) ? reader : nil
  }

  /// Every discovery message: topic and retained JSON payload.
  public var messages: [(topic: String, payload: [UInt8])] {
    let device: [String: JSONValue] = [
      "identifiers": .array([.string("puckalarm_\(dock)")]), "name": .string("PuckAlarm \(dock)"),
      "manufacturer": .string("PuckAlarm"), "model": .string("dock"), "sw_version": .string(version),
    ]
    func entity(_ component: String, _ id: String, _ name: String, _ extra: [String: JSONValue]) -> (
      String, [UInt8]
    ) {
      var config: [String: JSONValue] = [
        "name": .string(name), "unique_id": .string("puckalarm_\(dock)_\(id)"),
        "object_id": .string("puckalarm_\(dock)_\(id)"), "availability_topic": .string(availabilityTopic),
        "device": .object(device),
      ]
      config.merge(extra) { _, new in new }
      // `.null` in `extra` removes a default key (a timestamp sensor's availability is a list).
      config = config.filter { $0.value != .null }
      return ("\(prefix)/\(component)/puckalarm_\(dock)/\(id)/config", JSONValue.object(config).bytes)
    }
    func reading(_ key: String) -> [String: JSONValue] {
      ["state_topic": .string(stateTopic), "value_template": .string("{{ value_json.\(key) }}")]
    }
    /// A timestamp sensor: its own topic, available only while the state document has a value.
    func timestamp(_ key: String) -> [String: JSONValue] {
      [
        // The alarm's label as an attribute of the sensor, for automations.
        "json_attributes_topic": .string(stateTopic),
        "json_attributes_template": .string("{{ {'label': value_json.next_alarm_label} | tojson }}"),
        "state_topic": .string(timestampTopic(key)), "device_class": .string("timestamp"),
        "availability_topic": .null,
        "availability": .array([
          .object(["topic": .string(availabilityTopic)]),
          .object([
            "topic": .string(stateTopic),
            "value_template": .string("{{ 'online' if value_json.\(key) else 'offline' }}"),
          ]),
        ]),
        "availability_mode": .string("all"),
      ]
    }
    let onOff: [String: JSONValue] = ["payload_on": .string("ON"), "payload_off": .string("OFF")]
    // The open wake-up's alarm label as an attribute (null while none is open).
    let wakeUpLabel: [String: JSONValue] = [
      "json_attributes_topic": .string(stateTopic),
      "json_attributes_template": .string("{{ {'label': value_json.wake_up_label} | tojson }}"),
    ]
    var all = [
      entity("sensor", "next_alarm", "Next alarm", timestamp("next_alarm")),
      entity("sensor", "pre_alarm", "Pre-alarm", timestamp("pre_alarm")),
      entity(
        "binary_sensor", "ringing", "Ringing",
        reading("ringing").merging(onOff) { $1 }.merging(wakeUpLabel) { $1 }),
      entity(
        "binary_sensor", "wake_up_open", "Wake-up open",
        reading("open").merging(onOff) { $1 }.merging(wakeUpLabel) { $1 }),
      // How many alarms the dock holds; each one's id, time, label and whether it is on as the
      // `alarms` attribute (as many as fit HomeAssistantState.maximumPayloadBytes, in the dock's order).
      entity(
        "sensor", "alarms", "Alarms",
        reading("alarms_total").merging([
          "json_attributes_topic": .string(stateTopic),
          "json_attributes_template": .string(
            "{{ {'alarms': value_json.alarms, 'total': value_json.alarms_total} | tojson }}"),
        ]) { $1 }),
      entity("binary_sensor", "protected", "Protected", reading("protected").merging(onOff) { $1 }),
      entity(
        "sensor", "bypasses", "Bypasses",
        reading("bypasses").merging(["state_class": .string("measurement")]) { $1 }),
      entity(
        "sensor", "last_wake_up", "Last wake-up",
        timestamp("last_wake_up").merging([
          "json_attributes_topic": .null, "json_attributes_template": .null,
        ]) { $1 }),
      entity(
        "button", "bypass", "Bypass (silence, rings again)",
        ["command_topic": .string(bypassTopic), "payload_press": .string("PRESS")]),
      entity(
        "event", "wake_up", "Wake-up",
        [
          "state_topic": .string(eventTopic),
          "event_types": .array(HomeAssistantEvent.allCases.map { .string($0.rawValue) }),
        ]),
    ]
    for reader in readers {
      let config: [String: JSONValue] = ["topic": .string(tagTopic(reader)), "device": .object(device)]
      all.append((scannerConfigTopic(reader), JSONValue.object(config).bytes))
    }
    return all.map { (topic: $0.0, payload: $0.1) }
  }
}

/// A wake-up event as Home Assistant's `event` entity shows it.
public enum HomeAssistantEvent: String, CaseIterable, Sendable {
  case fired, silenced, resolved
  case wrongTag = "wrong_tag"
  /// A press of the bypass button did not count (docs/DESIGN.md M9).
  case bypassRefused = "bypass_refused"
  /// `[homeassistant] pre_alarm` before an alarm, for wake-up lights (docs/DESIGN.md M10).
  case preAlarm = "pre_alarm"
  /// A paired puck was scanned inside `lock_before`: the coming alarm ends before it rings
  /// (docs/DESIGN.md S12).
  case upEarly = "up_early"

  /// `{"event_type": "fired"}`.
  public var payload: [UInt8] { payload([:]) }

  /// The event with attributes Home Assistant shows on the event entity (the pre-alarm's
  /// alarm time and label): `{"event_type": "pre_alarm", "alarm": …, "label": …}`.
  public func payload(_ attributes: [String: JSONValue]) -> [UInt8] {
    JSONValue.object(attributes.merging(["event_type": .string(rawValue)]) { $1 }).bytes
  }
}

/// The retained state document Home Assistant's entities read, at most `maximumPayloadBytes`.
public struct HomeAssistantState: Hashable, Sendable {
  /// The most bytes the document takes: the README's "PuckAlarm's messages are under 2 KB",
  /// half the 4 KB over which the dock and the node drop a message unread
  /// (`MQTTConnection.defaultMaximumPayload`), an eighth of the broker's `message_size_limit`.
  /// Everything but the alarm list is bounded on its own (two labels of at most
  /// `Alarm.maximumLabelBytes`, timestamps, words): about 1.4 KB at worst.
  public static let maximumPayloadBytes = 2048

  /// One alarm as the Alarms sensor's `alarms` attribute lists it.
  public struct ListedAlarm: Hashable, Sendable {
    public var id: Int
    /// `06:30`.
    public var time: String
    /// Empty when it has none.
    public var label: String
    public var enabled: Bool

    /// Alarm `id` at `time` (`06:30`) with its `label`, on or off.
    public init(id: Int, time: String, label: String, enabled: Bool) {
      self.id = id
      self.time = time
      self.label = label
      self.enabled = enabled
    }

    var json: JSONValue {
      .object(["id": .number(id), "time": .string(time), "label": .string(label), "enabled": .bool(enabled)])
    }
  }

  public var nextAlarm: Instant?
  /// The next alarm's label; empty when it has none, nil while no alarm is set.
  public var nextAlarmLabel: String?
  /// The label of the open wake-up's alarm (the ringing one's when several are open); empty
  /// when it has none, nil while no wake-up is open.
  public var wakeUpLabel: String?
  /// Every alarm of the dock, in its order (at most 100, DESIGN C5). The document lists as
  /// many as fit `maximumPayloadBytes`, from the first; `alarms_total` says how many there are.
  public var alarms: [ListedAlarm] = [] {
    didSet { listedSizes = alarms.map { $0.json.bytes.count } }
  }
  /// Each alarm's bytes in the list, encoded once when the alarms change.
  private var listedSizes: [Int] = []
  /// When the next alarm's pre-alarm goes (or went) out.
  public var preAlarm: Instant?
  public var ringing = false
  public var open = false
  public var protected = false
  public var bypasses = 0
  public var lastWakeUp: Instant?

  public init() {}

  /// The timestamp topics' payloads (`next_alarm`, `pre_alarm`, `last_wake_up`): the ISO 8601
  /// text, or nil while there is none (nothing is published; the sensor is unavailable).
  public var timestamps: [(key: String, text: String?)] {
    [
      ("next_alarm", nextAlarm?.codingText), ("pre_alarm", preAlarm?.codingText),
      ("last_wake_up", lastWakeUp?.codingText),
    ]
  }

  /// The document, at most `maximumPayloadBytes`: the alarms that do not fit are left out of
  /// `alarms` (from the end), never anything else.
  public var payload: [UInt8] {
    func onOff(_ value: Bool) -> JSONValue { .string(value ? "ON" : "OFF") }
    var fields: [String: JSONValue] = [
      "next_alarm": nextAlarm.map { .string($0.codingText) } ?? .null,
      "next_alarm_label": nextAlarmLabel.map { .string($0) } ?? .null,
      "wake_up_label": wakeUpLabel.map { .string($0) } ?? .null,
      "pre_alarm": preAlarm.map { .string($0.codingText) } ?? .null, "ringing": onOff(ringing),
      "open": onOff(open), "protected": onOff(protected), "bypasses": .number(bypasses),
      "last_wake_up": lastWakeUp.map { .string($0.codingText) } ?? .null,
      "alarms": .array([]), "alarms_total": .number(alarms.count),
    ]
    var room = Self.maximumPayloadBytes - JSONValue.object(fields).bytes.count
    var listed: [JSONValue] = []
    for (alarm, size) in zip(alarms, listedSizes) {
      // A comma before every entry but the first.
      let cost = size + (listed.isEmpty ? 0 : 1)
      guard cost <= room else { break }
      room -= cost
      listed.append(alarm.json)
    }
    fields["alarms"] = .array(listed)
    return JSONValue.object(fields).bytes
  }
}

/// A JSON value with sorted keys when encoded, for payloads built by hand.
public indirect enum JSONValue: Hashable, Sendable, Encodable {
  case string(String)
  case number(Int)
  case bool(Bool)
  case array([JSONValue])
  case object([String: JSONValue])
  case null

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .string(let text): try container.encode(text)
    case .number(let number): try container.encode(number)
    case .bool(let value): try container.encode(value)
    case .array(let items): try container.encode(items)
    case .object(let fields): try container.encode(fields)
    case .null: try container.encodeNil()
    }
  }

  /// Compact JSON, keys sorted.
  public var bytes: [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? Array(encoder.encode(self))) ?? []
  }
}
