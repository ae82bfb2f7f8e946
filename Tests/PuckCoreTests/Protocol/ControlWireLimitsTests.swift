import PuckCore
import Testing

/// The size limits the control protocol's decoder enforces (issue 8 item 3).
@Suite struct ControlWireLimitsTests {
  private func addRequest(label: String) -> [UInt8] {
    ControlWire.encode(
      ControlRequest(
        adding: AlarmDraft(time: WallTime(hour: 6, minute: 30), recurrence: .weekly([.monday]), label: label))
    )
  }

  private func decode(_ text: String) throws(ControlFailure) -> ControlRequest {
    try ControlWire.decode(Array(text.utf8))
  }

  @Test(arguments: [
    "", "work", String(repeating: "x", count: 64),
    // 64 four-byte characters: exactly 256 bytes.
    String(repeating: "😴", count: 64),
    "é" + String(repeating: "a", count: 63),
  ])
  func labelsWithinTheLimitsAreAccepted(_ label: String) throws {
    guard let draft = try ControlWire.decode(addRequest(label: label)).alarmDraft else {
      Issue.record("not an alarm.add")
      return
    }
    #expect(draft.label == label)
  }

  @Test(arguments: [
    String(repeating: "x", count: 65),
    // 64 characters, each a letter with 200 combining accents: ~25 KB.
    String(repeating: "a" + String(repeating: "\u{0301}", count: 200), count: 64),
    // Few characters, one of them heavy: 257 bytes.
    "a" + String(repeating: "\u{0301}", count: 128),
    "wake\nup", "wake\rup", "tab\there", "bell\u{07}", "del\u{7F}", "c1\u{85}", "line\u{2028}sep",
    "para\u{2029}",
  ])
  func labelsBeyondTheLimitsAreRefused(_ label: String) {
    #expect(throws: ControlFailure(.badRequest, Alarm.labelRule)) {
      try ControlWire.decode(addRequest(label: label))
    }
  }

  @Test func theRuleNamesBothLimits() {
    #expect(Alarm.labelRule.contains("at most 64 characters and 256 bytes"))
  }

  @Test func historyWithoutLimitGetsTheDefaultPage() throws {
    #expect(try decode(#"{"v":1,"command":"history"}"#) == ControlRequest(.history, [.limit: .integer(20)]))
  }

  @Test func anOldClientSendingOnlyLimitStillWorks() throws {
    #expect(
      try decode(#"{"v":1,"command":"history","limit":3}"#) == ControlRequest(.history, [.limit: .integer(3)])
    )
  }

  @Test(arguments: [0, -1, 1001, 5000, Int.max])
  func historyLimitsOutOfRangeAreRefused(_ limit: Int) {
    #expect(throws: ControlFailure(.badRequest, HistoryQuery.limitRule)) {
      try decode(#"{"v":1,"command":"history","limit":\#(limit)}"#)
    }
    #expect(HistoryQuery.limitRule.contains("at most 1000"))
  }

  @Test func aNegativeCursorIsRefused() {
    #expect(throws: ControlFailure.self) { try decode(#"{"v":1,"command":"history","before":-5}"#) }
  }

  @Test func historyQueryRoundTrips() throws {
    let command = ControlRequest(.history, [.limit: .integer(1000), .before: .integer(123_456)])
    #expect(try ControlWire.decode(ControlWire.encode(command)) == command)
  }

  @Test func theReplyCarriesTheCursor() throws {
    let line = ControlWire.encode(ControlReply(ok: true, history: [], nextBefore: 4096))
    #expect(String(decoding: line, as: UTF8.self).contains(#""nextBefore":4096"#))
    #expect(try ControlWire.decodeReply(line).nextBefore == 4096)
    let last = ControlWire.encode(ControlReply(ok: true, history: []))
    #expect(!String(decoding: last, as: UTF8.self).contains("nextBefore"))
  }
}
