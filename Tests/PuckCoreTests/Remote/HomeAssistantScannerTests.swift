import Testing

@testable import PuckCore

/// Which retained scanner configs are this dock's (`HomeAssistantDiscovery.scannerReader`): the
/// bridge deletes those of readers no longer enrolled, so a config of another dock or another
/// integration must never be taken for one.
@Suite("Home Assistant: this dock's tag scanners")
struct HomeAssistantScannerTests {
  private let discovery = HomeAssistantDiscovery(
    dock: "bedroom", prefix: "homeassistant", readers: ["dock", "kitchen"], version: "0")

  private func reader(_ topic: String, _ payload: String) -> String? {
    discovery.scannerReader(topic: topic, payload: Array(payload.utf8))
  }

  @Test("every scanner this dock announces is read back as its reader")
  func ownScannersReadBack() {
    for message in discovery.messages where message.topic.contains("/tag/") {
      let name = discovery.scannerReader(topic: message.topic, payload: message.payload)
      #expect(name.map { discovery.scannerConfigTopic($0) } == message.topic)
    }
    #expect(
      reader(discovery.scannerConfigTopic("hall"), #"{"topic":"puckalarm/dock/bedroom/tag/hall"}"#) == "hall")
  }

  @Test(
    "another dock whose name begins as this one's, another integration, an empty or foreign payload: none is this dock's",
    arguments: [
      (
        "homeassistant/tag/puckalarm_bedroom_x_hall/config", #"{"topic":"puckalarm/dock/bedroom_x/tag/hall"}"#
      ),
      ("homeassistant/tag/puckalarm_bedroom_hall/config", #"{"topic":"puckalarm/dock/bedroom_x/tag/hall"}"#),
      ("homeassistant/tag/puckalarm_bedroom_hall/config", #"{"topic":"puckalarm/dock/bedroom/tag/kitchen"}"#),
      ("homeassistant/tag/puckalarm_bedroom_hall/config", ""),
      ("homeassistant/tag/puckalarm_bedroom_hall/config", "not json"),
      ("homeassistant/tag/zigbee_hall/config", #"{"topic":"zigbee2mqtt/hall"}"#),
      ("homeassistant/tag/puckalarm_bedroom_/config", #"{"topic":"puckalarm/dock/bedroom/tag/"}"#),
      ("homeassistant/tag/puckalarm_bedroom_Hall!/config", #"{"topic":"puckalarm/dock/bedroom/tag/Hall!"}"#),
      ("other/tag/puckalarm_bedroom_hall/config", #"{"topic":"puckalarm/dock/bedroom/tag/hall"}"#),
    ])
  func notThisDocks(topic: String, payload: String) {
    #expect(reader(topic, payload) == nil)
  }
}
