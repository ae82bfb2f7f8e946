import Foundation
import PuckCore
import PuckDaemon
import Testing

/// `puckctl test` (issue 13 item 2): a short ring at the starting volume, then "scan your puck
/// now", then one line per part; it fails when any part does.
@Suite("the rehearsal", .serialized)
struct RehearsalTests {
  @Test("rings at the starting volume, asks for the puck, and passes with the paired tag")
  func passesWithThePuck() throws {
    let dock = try ManualDock()
    try dock.start()
    let test = try dock.open("test", "--seconds", "2", "--scan-seconds", "10")
    #expect(try test.replies().isEmpty)
    #expect(dock.bench.audio?.calls.first == .start(volume: 0.3, ramp: nil), "low: start_volume, held")
    #expect(dock.bench.reader?.isPolling == false, "the field stays off while it rings")
    try dock.advance(.seconds(2))
    #expect(try test.replies().first?.progress?.contains("scan your puck now") == true)
    #expect(dock.bench.audio?.isPlaying == false)
    #expect(dock.bench.reader?.isPolling == true)
    dock.bench.reader?.present(dock.puck)
    let reply = try #require(try test.replies().last)
    #expect(reply.ok == true, "\(reply)")
    let text = reply.message ?? ""
    for part in ["reader: ok", "audio: ok", "buzzer: absent", "button: absent", "led: absent", "puck: ok"] {
      #expect(text.contains(part), "\(part) in \(text)")
    }
    #expect(dock.bench.reader?.isPolling == false)
    #expect(try dock.guards().isEmpty, "not a wake-up")
  }

  @Test("no tag within the wait, or a tag that is not the puck, fails the rehearsal and says which")
  func failsWithoutThePuck() throws {
    let dock = try ManualDock()
    try dock.start()
    let silent = try dock.open("test", "--seconds", "1", "--scan-seconds", "10")
    try dock.advance(.seconds(11))
    let all = try silent.replies()
    let timedOut = try #require(all.last(where: { $0.ok != nil }))
    #expect(timedOut.ok == false)
    #expect(timedOut.failure?.message.contains("puck: FAILED — no tag within 10 s") == true)

    let wrong = try dock.open("test", "--seconds", "1", "--scan-seconds", "10")
    try dock.advance(.seconds(1))
    dock.bench.reader?.present(dock.stranger)
    let reply = try #require(try wrong.replies().last(where: { $0.ok != nil }))
    #expect(reply.ok == false)
    #expect(reply.failure?.message.contains("not the paired tag") == true)
  }

  @Test("a puck already lying on the reader is not a scan: the rehearsal says so and waits for one")
  func lyingPuckIsNotAScan() throws {
    let dock = try ManualDock()
    try dock.start()
    let test = try dock.open("test", "--seconds", "1", "--scan-seconds", "10")
    try dock.advance(.seconds(1))
    dock.bench.reader?.present(dock.puck, fresh: false)
    try dock.settle()
    var replies = try test.replies()
    #expect(replies.allSatisfy { $0.ok == nil }, "not finished: \(replies)")
    #expect(replies.last?.progress?.contains("lift it and present it again") == true)
    #expect(dock.bench.reader?.isPolling == true)
    dock.bench.reader?.present(dock.puck)
    replies = try test.replies()
    let reply = try #require(replies.last(where: { $0.ok != nil }))
    #expect(reply.ok == true, "\(reply)")
    #expect(reply.message?.contains("puck: ok") == true)
  }

  @Test("an alarm that falls due interrupts the rehearsal and rings")
  func alarmInterrupts() throws {
    let dock = try ManualDock()
    try dock.start()
    try dock.addAlarm(6, 1)
    try dock.advance(.seconds(55))
    let test = try dock.open("test", "--seconds", "10", "--scan-seconds", "10")
    try dock.advance(.seconds(5))
    #expect(try test.replies().last?.failure?.message == "rehearsal interrupted")
    #expect(try dock.guards().first?.ringing == true)
  }
}
