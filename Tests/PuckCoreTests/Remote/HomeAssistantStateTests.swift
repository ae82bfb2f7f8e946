import Foundation
import Testing

@testable import PuckCore

/// The labels in Home Assistant's state (issue 22, "Wake-up lights"): the open wake-up's alarm
/// label on the Ringing and Wake-up open sensors, and every alarm's label on the Alarms sensor,
/// in a document that stays under `HomeAssistantState.maximumPayloadBytes`.
@Suite("Home Assistant state: labels")
struct HomeAssistantStateTests {
  private func decoded(_ state: HomeAssistantState) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(state.payload)) as? [String: Any])
  }

  @Test("the open wake-up's label is in the state, null while none is open")
  func wakeUpLabel() throws {
    var state = HomeAssistantState()
    #expect(try decoded(state)["wake_up_label"] is NSNull)
    state.open = true
    state.ringing = true
    state.wakeUpLabel = "sunrise"
    #expect(try decoded(state)["wake_up_label"] as? String == "sunrise")
    state.wakeUpLabel = ""
    #expect(try decoded(state)["wake_up_label"] as? String == "", "an alarm without a label")
  }

  @Test("each alarm's id, time, label and switch are listed, with the total")
  func alarmsListed() throws {
    var state = HomeAssistantState()
    #expect(try decoded(state)["alarms_total"] as? Int == 0)
    state.alarms = [
      .init(id: 1, time: "06:30", label: "work", enabled: true),
      .init(id: 4, time: "09:00", label: "", enabled: false),
    ]
    let document = try decoded(state)
    #expect(document["alarms_total"] as? Int == 2)
    let alarms = try #require(document["alarms"] as? [[String: Any]])
    #expect(alarms.count == 2)
    #expect(alarms.first?["label"] as? String == "work")
    #expect(alarms.first?["time"] as? String == "06:30")
    #expect(alarms.first?["id"] as? Int == 1)
    #expect(alarms.first?["enabled"] as? Bool == true)
    #expect(alarms.last?["enabled"] as? Bool == false)
  }

  @Test("a full dock with the heaviest labels stays under the bound, listing a prefix of its alarms")
  func boundedWithAFullDock() throws {
    // 64 four-byte characters: Alarm.maximumLabelBytes, and quotes that JSON doubles.
    let heaviest = String(repeating: "😴", count: Alarm.maximumLabelCharacters)
    #expect(heaviest.utf8.count == Alarm.maximumLabelBytes)
    var state = HomeAssistantState()
    state.nextAlarm = Instant(unixSeconds: 1_800_000_000)
    state.preAlarm = Instant(unixSeconds: 1_799_998_200)
    state.lastWakeUp = Instant(unixSeconds: 1_799_990_000)
    state.nextAlarmLabel = String(repeating: "\"", count: Alarm.maximumLabelBytes)
    state.wakeUpLabel = String(repeating: "\\", count: Alarm.maximumLabelBytes)
    state.alarms = (1...100).map { .init(id: $0, time: "06:30", label: heaviest, enabled: true) }
    #expect(state.payload.count <= HomeAssistantState.maximumPayloadBytes)
    let document = try decoded(state)
    #expect(document["alarms_total"] as? Int == 100)
    let listed = try #require(document["alarms"] as? [[String: Any]])
    #expect(listed.count < 100)
    #expect(listed.compactMap { $0["id"] as? Int } == Array(1...listed.count), "the first ones, in order")
    #expect(document["wake_up_label"] as? String == state.wakeUpLabel, "never cut: only the list is")

    // A hundred short labels: most of them fit.
    state.nextAlarmLabel = "work"
    state.wakeUpLabel = "work"
    state.alarms = (1...100).map { .init(id: $0, time: "06:30", label: "a\($0)", enabled: true) }
    #expect(state.payload.count <= HomeAssistantState.maximumPayloadBytes)
    let short = try #require(try decoded(state)["alarms"] as? [[String: Any]])
    #expect(short.count >= 30, "\(short.count) of 100 listed")
  }

  @Test("Ringing and Wake-up open carry the label as an attribute; an Alarms sensor lists the alarms")
  func discoveryCarriesTheLabels() throws {
    let discovery = HomeAssistantDiscovery(
      dock: "bedroom", prefix: "homeassistant", readers: [], version: "1")
    func config(_ suffix: String) throws -> [String: Any] {
      let message = try #require(discovery.messages.first { $0.topic.hasSuffix(suffix) })
      return try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
    }
    for entity in [
      "binary_sensor/puckalarm_bedroom/ringing/config", "binary_sensor/puckalarm_bedroom/wake_up_open/config",
    ] {
      let payload = try config(entity)
      #expect(payload["json_attributes_topic"] as? String == discovery.stateTopic)
      #expect((payload["json_attributes_template"] as? String)?.contains("value_json.wake_up_label") == true)
    }
    let alarms = try config("sensor/puckalarm_bedroom/alarms/config")
    #expect(alarms["value_template"] as? String == "{{ value_json.alarms_total }}")
    #expect((alarms["json_attributes_template"] as? String)?.contains("value_json.alarms") == true)
    #expect(alarms["command_topic"] == nil, "it only tells")
  }
}
