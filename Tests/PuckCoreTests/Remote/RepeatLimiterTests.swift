import PuckCore
import Testing

/// One report per kind per interval, with the count held back (docs/DESIGN.md M8), on a clock
/// moved by hand.
@Suite struct RepeatLimiterTests {
  @Test func oneReportPerKindPerIntervalWithTheCountHeldBack() {
    var limiter = RepeatLimiter<String, TestInstant>(interval: .seconds(60))
    #expect(limiter.admit("bad signature", now: .zero) == 0)
    for second in 1...59 { #expect(limiter.admit("bad signature", now: .seconds(second)) == nil) }
    // Another kind has its own allowance.
    #expect(limiter.admit("stale", now: .seconds(30)) == 0)
    #expect(limiter.admit("bad signature", now: .seconds(60)) == 59, "the 59 held back are counted")
    #expect(limiter.admit("bad signature", now: .milliseconds(60_001)) == nil)
    #expect(limiter.admit("bad signature", now: .seconds(200)) == 1)
  }
}

/// Text from the network in one bounded log line.
@Suite struct LogTextTests {
  @Test func longTextIsCutAndCounted() {
    let text = String(repeating: "A", count: 40 << 20)
    let shown = LogText.bounded(text, limit: 10)
    #expect(shown == "AAAAAAAAAA…(\(40 << 20) bytes)")
  }

  @Test func controlCharactersAreShownAsQuestionMarks() {
    #expect(LogText.bounded("a\nb\u{1B}[31mc\u{0}") == "a?b?[31mc?")
    #expect(LogText.bounded("kitchen") == "kitchen")
  }
}
