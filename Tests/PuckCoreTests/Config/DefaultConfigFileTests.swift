import PuckCore
import Testing

@Suite struct DefaultConfigFileTests {
  @Test func shippedFileParsesToTheDefaults() throws {
    #expect(try DockConfig.parse(DockConfig.defaultFileText, file: "puckd.conf") == DockConfig.defaults)
  }

  /// The commented-out assignments are the documentation of each default: uncommenting all of
  /// them (and the optional section headers) must give the defaults, with every part fitted.
  @Test func uncommentedAssignmentsAreTheRealDefaults() throws {
    let uncommented = DockConfig.defaultFileText
      .split(separator: "\n", omittingEmptySubsequences: false)
      .map { line -> Substring in
        guard line.hasPrefix("#"), let next = line.dropFirst().first, next == "[" || next.isLetter else {
          return line
        }
        return line.dropFirst()
      }
      .joined(separator: "\n")
    var expected = DockConfig.defaults
    expected.buzzer = BuzzerSettings()
    expected.button = .defaultButton
    expected.led = .defaultLED
    #expect(try DockConfig.parse(uncommented, file: "puckd.conf") == expected)
  }

  @Test func everyKeyIsDocumented() {
    for (section, keys) in DockConfig.sections.map({ ($0.name, $0.keys.map(\.name)) }) {
      #expect(
        DockConfig.defaultFileText.contains("[\(section)]"),
        "section [\(section)] missing from the default file")
      for key in keys {
        #expect(DockConfig.defaultFileText.contains("#\(key) ="), "key \(key) missing from the default file")
      }
    }
  }
}
