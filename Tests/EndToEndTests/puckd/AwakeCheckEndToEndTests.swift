import Foundation
import Testing

/// Issue 13 item 4 end to end: the wake-up check against a real daemon and `puckctl awake`
/// (the unanswered minute and the reopening run on the manual clock in `AwakeCheckTests`).
@Suite("wake-up check, end to end", .serialized)
struct AwakeCheckEndToEndTests {
  @Test("after a scan the dock asks; puckctl awake answers; status, STATUS and history say so")
  func askedAndAnswered() throws {
    let dock = try DaemonHarness(
      config: "[audio]\ndevice = null\n[enforcement]\nawake_check = 2s\n", audio: false)
    try dock.writePairing("04:A2:3B:11:22:33:44")
    try dock.start()
    _ = try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    #expect(try dock.ctl("scan", "04:A2:3B:11:22:33:44").stdout.contains("wake-up complete"))
    #expect(try dock.ctl("awake").status == 2, "refused: nothing asked yet")
    // No [button] here: status names only the answer this dock has.
    try waitUntil(timeout: 6, "the dock asks") {
      try dock.ctl("status").stdout.contains("Wake-up check: run 'puckctl awake' by")
    }
    #expect(dock.log.contains("wake-up check for"), "the question is logged")
    let answered = try dock.ctl("awake")
    #expect(answered.status == 0, "\(answered.stderr)")
    #expect(try !dock.ctl("status").stdout.contains("Wake-up check"))
    let history = try dock.ctl("history").stdout
    #expect(history.contains("the wake-up check was answered: up"), "\(history)")
    #expect(try !dock.isRinging())
  }

  @Test(
    "without a buzzer the question reaches the speaker: its beeps play through ALSA into the sink, then the speaker is let go while the dock waits"
  )
  func askedOnTheSpeaker() throws {
    let puck = "04:A2:3B:11:22:33:44"
    let dock = try DaemonHarness(config: "[enforcement]\nawake_check = 5s\n")
    let sink = try #require(dock.audio)
    try dock.writePairing(puck)
    try dock.start()
    _ = try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    #expect(try dock.ctl("scan", puck).stdout.contains("wake-up complete"))
    // One recording over the question (5 s after the scan, 1.2 s of beeps); its first 2 s,
    // where the ring's stream may linger, are left out.
    let heard = try sink.record(seconds: 9).dropFirst(2 * 48_000).map { abs(Int($0)) }.max() ?? 0
    #expect(heard > 1000, "the question is heard on the speaker (peak \(heard))")
    try waitUntil(timeout: 5, "the question ends by itself") { try !sink.hasStream() }
    let check = try dock.status()["awakeCheck"] as? [String: Any]
    #expect(check?["answerBy"] != nil, "still waiting for the answer: \(String(describing: check))")
    #expect(try dock.ctl("awake").status == 0)
    #expect(try !dock.isRinging())
  }
}
