import Testing

@testable import PuckDevices

@Suite struct BeatPatternTests {
  @Test func repeatsOnThenOffForEver() {
    let pattern = BeatPattern(on: .milliseconds(300), off: .milliseconds(700))
    #expect(pattern.isOn(after: .zero))
    #expect(pattern.isOn(after: .milliseconds(299)))
    #expect(!pattern.isOn(after: .milliseconds(300)))
    #expect(!pattern.isOn(after: .milliseconds(999)))
    #expect(pattern.isOn(after: .milliseconds(1000)))
    #expect(pattern.isOn(after: .seconds(3600)))
    #expect(pattern.nextChange(after: .zero) == .milliseconds(300))
    #expect(pattern.nextChange(after: .milliseconds(300)) == .milliseconds(1000))
    #expect(pattern.nextChange(after: .milliseconds(1000)) == .milliseconds(1300))
    #expect(pattern.nextChange(after: .milliseconds(3_600_100)) == .milliseconds(3_600_300))
  }

  @Test func theWrongPuckChirpIsThreeBeatsOf80MillisecondsThenNothing() {
    let chirp = BeatPattern.wrongPuck
    let changes = sequence(first: Duration.zero) { chirp.nextChange(after: $0) }.map {
      ($0.nanoseconds / 1_000_000, chirp.isOn(after: $0))
    }
    #expect(changes.map(\.0) == [0, 80, 160, 240, 320, 400])
    #expect(changes.map(\.1) == [true, false, true, false, true, false])
    #expect(!chirp.isOn(after: .seconds(10)))
    #expect(chirp.nextChange(after: .milliseconds(400)) == nil)
  }

  @Test func isOffBeforeItBegins() {
    let pattern = BeatPattern.blink
    #expect(!pattern.isOn(after: .milliseconds(-1)))
    #expect(pattern.nextChange(after: .milliseconds(-5)) == .zero)
  }
}
