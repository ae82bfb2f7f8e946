import PuckCore
import Testing

/// One report per kind per interval, with the count held back (docs/DESIGN.md M8), on a clock
/// moved by hand.
@Suite struct RepeatLimiterTests {
  @Test func oneReportPerKindPerIntervalWithTheCountHeldBack() {
    var limiter = RepeatLimiter<String>(interval: 60_000)
    #expect(limiter.admit("bad signature", now: 0) == 0)
    for second in 1...59 { #expect(limiter.admit("bad signature", now: Int64(second) * 1000) == nil) }
    // Another kind has its own allowance.
    #expect(limiter.admit("stale", now: 30_000) == 0)
    #expect(limiter.admit("bad signature", now: 60_000) == 59, "the 59 held back are counted")
    #expect(limiter.admit("bad signature", now: 60_001) == nil)
    #expect(limiter.admit("bad signature", now: 200_000) == 1)
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
