import Testing

@testable import PuckCore

/// The wake-up check's rules (docs/DESIGN.md W17) without a daemon: which ends start a check,
/// when it asks, when it gives up, and what a restart keeps.
@Suite struct AwakeCheckRulesTests {
  private let occurrence = AlarmOccurrence(
    alarmID: 1, label: "", time: WallTime(hour: 6, minute: 30), scheduledAt: Instant(unixSeconds: 1_000),
    requiresPuck: true, isOneShot: false)
  private let scannedAt = Instant(unixSeconds: 1_070)

  private func ended(_ outcome: HistoryEntry.Outcome) -> HistoryEntry {
    HistoryEntry(
      outcome: outcome, occurrence: occurrence, openedAt: Instant(unixSeconds: 1_000), closedAt: scannedAt,
      bypassCount: 0, rings: 1)
  }

  @Test("only a wake-up ended by a scan starts a check, and only with awake_check on")
  func whatStartsACheck() {
    let check = AwakeCheckState.after(ended(.woke), delay: .seconds(300), now: scannedAt)
    #expect(check == AwakeCheckState(occurrence: occurrence, askAt: Instant(unixSeconds: 1_370)))
    #expect(check?.isAsking == false)
    #expect(AwakeCheckState.after(ended(.woke), delay: .zero, now: scannedAt) == nil, "awake_check = 0s")
    for outcome: HistoryEntry.Outcome in [.stopped, .overridden, .missed, .awake, .reopened] {
      #expect(
        AwakeCheckState.after(ended(outcome), delay: .seconds(300), now: scannedAt) == nil, "\(outcome)")
    }
  }

  @Test("due: it waits until askAt, then asks with a minute to answer, then gives the wake-up back")
  func stepsOfACheck() throws {
    let check = AwakeCheckState(occurrence: occurrence, askAt: Instant(unixSeconds: 1_370))
    #expect(check.dueAt == Instant(unixSeconds: 1_370))
    #expect(check.step(at: Instant(unixSeconds: 1_369)) == .wait(until: Instant(unixSeconds: 1_370)))
    guard case .ask(let asking) = check.step(at: Instant(unixSeconds: 1_370)) else {
      Issue.record("not asked at askAt")
      return
    }
    #expect(asking.isAsking && asking.occurrence == occurrence && asking.askAt == check.askAt)
    #expect(asking.answerBy == Instant(unixSeconds: 1_370 + AwakeCheckState.answerWindow))
    #expect(asking.dueAt == Instant(unixSeconds: 1_430))
    #expect(asking.step(at: Instant(unixSeconds: 1_429)) == .wait(until: Instant(unixSeconds: 1_430)))
    #expect(asking.step(at: Instant(unixSeconds: 1_430)) == .unanswered(occurrence))
  }

  @Test("a timer late by hours asks from then: the minute to answer starts when the dock asks")
  func aLateAskStillGivesAMinute() {
    let check = AwakeCheckState(occurrence: occurrence, askAt: Instant(unixSeconds: 1_370))
    let late = Instant(unixSeconds: 9_000)
    #expect(
      check.step(at: late)
        == .ask(
          AwakeCheckState(
            occurrence: occurrence, askAt: check.askAt,
            answerBy: late.adding(seconds: AwakeCheckState.answerWindow))))
  }

  @Test("a restart keeps a check not yet asked, and asks one that had asked again from the restart")
  func restart() {
    let waiting = AwakeCheckState(occurrence: occurrence, askAt: Instant(unixSeconds: 1_370))
    #expect(waiting.resumed(now: Instant(unixSeconds: 1_100)) == waiting)
    #expect(waiting.resumed(now: Instant(unixSeconds: 2_000)) == waiting, "due: asked at the next step")
    let asking = AwakeCheckState(
      occurrence: occurrence, askAt: Instant(unixSeconds: 1_370), answerBy: Instant(unixSeconds: 1_430))
    let restarted = Instant(unixSeconds: 1_400)
    let resumed = asking.resumed(now: restarted)
    #expect(resumed == AwakeCheckState(occurrence: occurrence, askAt: restarted))
    #expect(!resumed.isAsking, "nobody heard the chirp while puckd was down")
  }

  @Test("the answer named is the dock button only on a dock that has one")
  func howToAnswer() {
    #expect(AwakeCheckState.howToAnswer(button: true) == "press the dock button or run 'puckctl awake'")
    #expect(AwakeCheckState.howToAnswer(button: false) == "run 'puckctl awake'")
  }
}
