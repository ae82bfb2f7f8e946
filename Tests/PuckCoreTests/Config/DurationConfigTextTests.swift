import PuckCore
import Testing

@Suite struct DurationConfigTextTests {
  @Test func parsesUnitsAndCombinations() {
    #expect(Duration(configText: "60s") == .seconds(60))
    #expect(Duration(configText: "60") == .seconds(60))
    #expect(Duration(configText: "10min") == .seconds(600))
    #expect(Duration(configText: "500ms") == .milliseconds(500))
    #expect(Duration(configText: "1h") == .seconds(3600))
    #expect(Duration(configText: "1min 30s") == .seconds(90))
    #expect(Duration(configText: "1h30min") == .seconds(5400))
    #expect(Duration(configText: "2 minutes") == .seconds(120))
    #expect(Duration(configText: "1s 250ms") == .milliseconds(1250))
    #expect(Duration(configText: "0") == .zero)
  }

  @Test func rejectsWhatItCannotRead() {
    for bad in ["", "1.5s", "-1s", "10 parsecs", "s", "1 2s", "1e3", "١٢s"] {
      #expect(Duration(configText: bad) == nil, "\(bad)")
    }
  }

  @Test func formatsTheWayTheFileIsWritten() {
    #expect(Duration.seconds(5).configText == "5s")
    #expect(Duration.seconds(1800).configText == "30min")
    #expect(Duration.seconds(90).configText == "1min 30s")
    #expect(Duration.milliseconds(500).configText == "500ms")
    #expect(Duration.seconds(5400).configText == "1h 30min")
    #expect(Duration.zero.configText == "0s")
  }
}
