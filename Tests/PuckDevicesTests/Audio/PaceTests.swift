import PuckSystem
import Testing

@testable import PuckDevices

/// The clock a ring follows on devices that never make it wait (issue 8 item 14).
@Suite struct PaceTests {
  let start = MonotonicInstant.now()

  @Test func writesUpToTheAllowanceAheadAtOnceThenWaitsForRealTime() {
    let pace = Pace(sampleRate: 48_000, ahead: .milliseconds(100), frames: 0, now: start)
    #expect(pace.delay(before: 0, now: start) == nil)
    #expect(pace.delay(before: 4_800, now: start) == nil, "100 ms ahead is allowed")
    #expect(pace.delay(before: 9_600, now: start) == .milliseconds(100))
    // A second later, a second more is allowed.
    #expect(pace.delay(before: 52_800, now: start + .seconds(1)) == nil)
    #expect(pace.delay(before: 57_600, now: start + .seconds(1)) == .milliseconds(100))
  }

  @Test func aDeviceThatSetsThePaceMovesTheOrigin() {
    var pace = Pace(sampleRate: 48_000, ahead: .milliseconds(100), frames: 0, now: start)
    // The device blocked 2 s in with only 1 s written (it runs slower): count from there, so
    // the ring never bursts a second of audio ahead.
    pace.restart(frames: 48_000, now: start + .seconds(2))
    #expect(pace.delay(before: 52_800, now: start + .seconds(2)) == nil)
    #expect(pace.delay(before: 57_600, now: start + .seconds(2)) == .milliseconds(100))
  }
}
