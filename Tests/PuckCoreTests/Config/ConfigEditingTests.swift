import PuckCore
import Testing

/// What `puckctl setup` writes into a builder's `puckd.conf`: the one key, and every comment,
/// blank line and other key as it was.
@Suite struct ConfigEditingTests {
  private func set(_ text: String, _ value: String = "pn532_uart:/dev/serial0") -> String {
    DockConfig.setting("device", in: "reader", to: value, text: text)
  }

  @Test func aSetKeyIsRewrittenInPlaceAndNothingElseMoves() {
    let text =
      "# my dock\n[reader]\n# the kitchen one\ndevice = auto   # was auto\npoll_interval = 30ms\n\n[audio]\ndevice = default\n"
    #expect(
      set(text)
        == "# my dock\n[reader]\n# the kitchen one\ndevice = pn532_uart:/dev/serial0   # was auto\npoll_interval = 30ms\n\n[audio]\ndevice = default\n"
    )
  }

  @Test func theKeyOfAnotherSectionIsLeftAlone() {
    let text = "[audio]\ndevice = default\n\n[reader]\npoll_interval = 30ms\n"
    #expect(
      set(text)
        == "[audio]\ndevice = default\n\n[reader]\npoll_interval = 30ms\ndevice = pn532_uart:/dev/serial0\n")
  }

  @Test func aCommentedDefaultShowsWhereTheLineGoes() {
    let text = "[reader]\n# Which reader to poll.\n# device = auto\n\n# poll_interval = 30ms\n[audio]\n"
    #expect(
      set(text)
        == "[reader]\n# Which reader to poll.\n# device = auto\ndevice = pn532_uart:/dev/serial0\n\n# poll_interval = 30ms\n[audio]\n"
    )
  }

  @Test func aMissingSectionIsAddedAtTheEnd() {
    #expect(
      set("[audio]\ndevice = default\n")
        == "[audio]\ndevice = default\n\n[reader]\ndevice = pn532_uart:/dev/serial0\n")
    #expect(set("") == "[reader]\ndevice = pn532_uart:/dev/serial0\n")
  }

  @Test func theResultParsesWithTheDaemonsOwnParser() throws {
    let written = set("# nothing yet\n[audio]\n# device = default\n")
    let config = try DockConfig.parse(written, file: "puckd.conf")
    #expect(config.reader.device == .connstring("pn532_uart:/dev/serial0"))
  }
}
