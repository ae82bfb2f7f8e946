import Foundation
import Glibc
import PuckCore
import Testing

/// The dock in Home Assistant through MQTT discovery (issue 11 item 5), against a real
/// `mosquitto`: the discovery configs are retained and valid for Home Assistant's own schemas
/// (`Tests/homeassistant/validate_discovery.py`, run when `PUCK_HA_PYTHON` names a Python with
/// the `homeassistant` package, as `.ci/check-homeassistant` does), the state follows the dock,
/// and the bypass button silences without ending the wake-up.
@Suite("Home Assistant through MQTT discovery", .serialized)
struct HomeAssistantTests {
  /// The first `count` messages `mosquitto_sub` hears on `topic` (retained ones come at once).
  /// Counted, not timed: the test runner's children inherit blocked signals, so `-W` (an alarm)
  /// never fires; `timeout -s KILL` ends a wait for messages that never come.
  static func listen(_ broker: Broker, _ topic: String, count: Int) throws -> [(
    topic: String, payload: String
  )] {
    let result = try runExternal(
      "/usr/bin/timeout",
      [
        "-s", "KILL", "5", "/usr/bin/mosquitto_sub", "-p", "\(broker.port)", "-t", topic, "-v", "-C",
        "\(count)",
      ])
    return result.stdout.split(separator: "\n").compactMap { line -> (topic: String, payload: String)? in
      let parts = line.split(separator: " ", maxSplits: 1)
      guard parts.count == 2 else { return nil }
      return (String(parts[0]), String(parts[1]))
    }
  }

  static func state(_ broker: Broker) throws -> [String: Any] {
    let message = try #require(try listen(broker, "puckalarm/dock/bedroom/state", count: 1).last)
    return try #require(try JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any])
  }

  @Test(
    "discovery for every entity, valid for Home Assistant; state follows; the button is a bypass, never an end"
  )
  func discoveryStateAndBypass() throws {
    let broker = try Broker()
    let dock = try DaemonHarness(
      simulate: true,
      config:
        "[mqtt]\nport = \(broker.port)\ndock_name = bedroom\n[homeassistant]\nenabled = yes\n"
        + "bypass_button = yes\nbypass_after = 0s\n",
      audio: false)
    try dock.start()
    try dock.pair("04:A2:3B:11:22:33:44")
    // A remote reader becomes a tag scanner of its own (its node is not running: the scanner
    // config is there all the same).
    #expect(try dock.ctl("reader", "add", "kitchen").status == 0)
    // Retained, so each look gets every config published so far; the kitchen's comes once the
    // loop has taken the new reader.
    var configs: [(topic: String, payload: String)] = []
    try waitUntil(timeout: 30, "eleven discovery configs, the kitchen's scanner among them") {
      configs = try Self.listen(broker, "homeassistant/#", count: 11)
      return configs.count == 11
    }
    let topics = Set(configs.map(\.topic))
    for entity in [
      "sensor/puckalarm_bedroom/next_alarm", "sensor/puckalarm_bedroom/pre_alarm",
      "binary_sensor/puckalarm_bedroom/ringing",
      "binary_sensor/puckalarm_bedroom/wake_up_open", "binary_sensor/puckalarm_bedroom/protected",
      "sensor/puckalarm_bedroom/bypasses", "sensor/puckalarm_bedroom/last_wake_up",
      "sensor/puckalarm_bedroom/alarms",
      "button/puckalarm_bedroom/bypass", "event/puckalarm_bedroom/wake_up", "tag/puckalarm_bedroom_kitchen",
    ] {
      #expect(topics.contains("homeassistant/\(entity)/config"), "\(entity)")
    }
    // A timestamp sensor says "no value" through availability, never with a state Home
    // Assistant would log as invalid (null, None, an empty string).
    let nextAlarm = try #require(
      configs.first { $0.topic.hasSuffix("sensor/puckalarm_bedroom/next_alarm/config") })
    #expect(nextAlarm.payload.contains(#""availability_mode":"all""#))
    #expect(nextAlarm.payload.contains(#""state_topic":"puckalarm/dock/bedroom/next_alarm""#))
    #expect(!nextAlarm.payload.contains("availability_topic"))
    let availability = try Self.listen(broker, "puckalarm/dock/bedroom/availability", count: 1)
    #expect(availability.last?.payload == "online")

    if let python = ProcessInfo.processInfo.environment["PUCK_HA_PYTHON"] {
      let file = broker.directory.appendingPathComponent("discovery.jsonl")
      let lines = try configs.map { message -> String in
        let object: [String: Any] = [
          "topic": message.topic,
          "payload": try JSONSerialization.jsonObject(with: Data(message.payload.utf8)),
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
      }
      try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
      let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("homeassistant/validate_discovery.py").path
      let validated = try runExternal(python, [script, file.path])
      #expect(validated.status == 0, "Home Assistant's schemas: \(validated.stdout) \(validated.stderr)")
      print(validated.stdout)
    } else {
      print(
        "PUCK_HA_PYTHON is not set: the discovery payloads were not checked against Home Assistant's schemas")
    }

    // State: an alarm rings; the button silences it and the wake-up stays open. The state
    // names the ringing alarm's label and lists every alarm with its label.
    #expect(try dock.ctl("alarm", "add", "05:55", "--label", "weekend", "--days", "sat,sun").status == 0)
    try dock.addAlarm(inSeconds: 2, extra: ["--label", "gym"])
    try waitUntil(timeout: 8, "the alarm rings") { try dock.isRinging() }
    try waitUntil(timeout: 5, "Home Assistant sees it ringing, with its label") {
      let state = try Self.state(broker)
      return state["ringing"] as? String == "ON" && state["open"] as? String == "ON"
        && state["wake_up_label"] as? String == "gym"
    }
    let listed = try Self.state(broker)
    #expect(listed["alarms_total"] as? Int == 2)
    let labels = (listed["alarms"] as? [[String: Any]])?.compactMap { $0["label"] as? String }
    #expect(labels == ["weekend", "gym"], "\(listed)")
    // A press buys at most half as much quiet as the ring was heard (W18): let it ring 8 s.
    usleep(8_000_000)
    try broker.publish("puckalarm/dock/bedroom/bypass", Array("PRESS".utf8))
    try waitUntil(timeout: 5, "the button silences") { try !dock.isRinging() }
    #expect(try !dock.guards().isEmpty, "the wake-up stays open: only a scan ends it")
    try waitUntil(timeout: 5, "Home Assistant sees a bypass") {
      let state = try Self.state(broker)
      return state["ringing"] as? String == "OFF" && state["bypasses"] as? Int == 1
    }
    // Anything else on the command topic is nothing.
    try broker.publish("puckalarm/dock/bedroom/bypass", Array("OFF".utf8))
    #expect(try dock.ctl("scan", "04:A2:3B:11:22:33:44").status == 0)
    try waitUntil(timeout: 5, "the scan ends it and Home Assistant knows when") {
      let state = try Self.state(broker)
      return state["open"] as? String == "OFF" && state["last_wake_up"] is String
        && state["wake_up_label"] is NSNull
    }
    let lastWakeUp = try Self.listen(broker, "puckalarm/dock/bedroom/last_wake_up", count: 1)
    #expect(lastWakeUp.last?.payload.contains("T") == true, "the time on its own topic: \(lastWakeUp)")

    // A reader removed takes its scanner out of Home Assistant: its retained config is cleared
    // (before, the bridge reconnected and left the old one on the broker for good).
    #expect(try dock.ctl("reader", "rm", "kitchen").status == 0)
    try waitUntil(timeout: 20, "the kitchen's scanner is gone from the broker") {
      try Self.listen(broker, "homeassistant/tag/puckalarm_bedroom_kitchen/config", count: 1).isEmpty
    }
    #expect(
      try Self.listen(broker, "puckalarm/dock/bedroom/availability", count: 1).last?.payload == "online")
  }

  @Test(
    "a scanner the broker keeps of a reader gone while puckd was away is deleted at start; another dock's is kept"
  )
  func staleScannerDeletedAtStart() throws {
    let broker = try Broker()
    // Left on the broker: the hall reader's scanner, removed while the broker was unreachable
    // and puckd restarted since; and the hall of a dock called bedroom_x, whose topics begin as
    // this dock's do.
    let stale = "homeassistant/tag/puckalarm_bedroom_hall/config"
    let other = "homeassistant/tag/puckalarm_bedroom_x_hall/config"
    let hall = Array(#"{"topic":"puckalarm/dock/bedroom/tag/hall"}"#.utf8)
    try broker.publish(stale, hall, retain: true)
    try broker.publish(other, Array(#"{"topic":"puckalarm/dock/bedroom_x/tag/hall"}"#.utf8), retain: true)
    let dock = try DaemonHarness(
      simulate: true,
      config: "[mqtt]\nport = \(broker.port)\ndock_name = bedroom\n[homeassistant]\nenabled = yes\n",
      audio: false)
    try dock.start()
    try waitUntil(timeout: 30, "the stale scanner is deleted") {
      try Self.listen(broker, stale, count: 1).isEmpty
    }
    #expect(dock.log.contains("removed the tag scanner of reader 'hall'"), "\(dock.log)")
    #expect(try Self.listen(broker, other, count: 1).first?.payload.contains("bedroom_x") == true)
    // An enrolled reader's scanner, which the broker hands back at every start, is kept.
    #expect(try dock.ctl("reader", "add", "kitchen").status == 0)
    let kitchen = "homeassistant/tag/puckalarm_bedroom_kitchen/config"
    try waitUntil(timeout: 30, "the kitchen's scanner") {
      try Self.listen(broker, kitchen, count: 1).count == 1
    }
    dock.stop()
    try broker.publish(stale, hall, retain: true)
    try dock.start()
    try waitUntil(timeout: 30, "the stale scanner is deleted again") {
      try Self.listen(broker, stale, count: 1).isEmpty
    }
    #expect(try Self.listen(broker, kitchen, count: 1).count == 1, "the enrolled reader's scanner stays")
    #expect(try Self.listen(broker, other, count: 1).count == 1, "the other dock's scanner stays")
  }

  /// Wake-up lights (issue 22, docs/DESIGN.md M10): the pre-alarm event with the alarm's time
  /// and label comes `pre_alarm` before the alarm, while it is still quiet; the `pre_alarm`
  /// sensor has its time and the state the label. Short values so it takes seconds.
  @Test("the pre-alarm event arrives before the alarm, with its label")
  func preAlarmBeforeTheAlarm() throws {
    let broker = try Broker()
    let dock = try DaemonHarness(
      simulate: true,
      config:
        "[mqtt]\nport = \(broker.port)\ndock_name = bedroom\n[homeassistant]\nenabled = yes\npre_alarm = 4s\n",
      audio: false)
    try dock.start()
    try dock.pair("04:A2:3B:11:22:33:44")
    let eventTopic = "puckalarm/dock/bedroom/event"
    // Subscribed before the alarm is set: events are not retained.
    let listener = try broker.subscribe(eventTopic)
    _ = try dock.addAlarm(inSeconds: 9, extra: ["--label", "sunrise"])
    try waitUntil(timeout: 8, "the pre-alarm event") {
      listener.payloads.contains { $0.contains("pre_alarm") }
    }
    #expect(try !dock.isRinging(), "the pre-alarm comes before the ring")
    #expect(try dock.guards().isEmpty, "before the wake-up opens")
    let event = try #require(listener.payloads.first { $0.contains("pre_alarm") })
    #expect(event.contains(#""label":"sunrise""#), "\(event)")
    #expect(event.contains(#""alarm":"20"#), "the alarm's time: \(event)")
    let state = try Self.state(broker)
    #expect(state["next_alarm_label"] as? String == "sunrise")
    #expect(state["pre_alarm"] is String)
    let preAlarm = try Self.listen(broker, "puckalarm/dock/bedroom/pre_alarm", count: 1)
    #expect(preAlarm.last?.payload.contains("T") == true, "the pre-alarm time on its own topic: \(preAlarm)")
    try waitUntil(timeout: 10, "the alarm rings after it") { try dock.isRinging() }
    #expect(listener.payloads.filter { $0.contains("pre_alarm") }.count == 1, "one pre-alarm per alarm")
    #expect(try dock.ctl("scan", "04:A2:3B:11:22:33:44").status == 0)
  }
}
