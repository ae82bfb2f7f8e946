import PuckCore
import Testing

/// The pre-alarm for wake-up lights (docs/DESIGN.md M10), on a clock moved by hand.
@Suite struct PreAlarmPlanTests {
  let alarm = Instant(unixSeconds: 1_000_000)

  @Test func goesOutOnceLeadBeforeTheAlarm() {
    var plan = PreAlarmPlan(lead: .seconds(30 * 60))
    let due = alarm.adding(seconds: -1800)
    #expect(plan.step(nextAlarm: alarm, now: due.adding(seconds: -3600)) == .wait(until: due))
    #expect(plan.step(nextAlarm: alarm, now: due.adding(seconds: -1)) == .wait(until: due))
    #expect(plan.step(nextAlarm: alarm, now: due) == .publish(alarm: alarm))
    // Asked again (a status change, the timer once more): not sent twice.
    #expect(plan.step(nextAlarm: alarm, now: due) == .idle)
    #expect(plan.step(nextAlarm: alarm, now: due.adding(seconds: 600)) == .idle)
    // The next day's alarm has its own.
    let tomorrow = alarm.adding(seconds: 86_400)
    #expect(plan.step(nextAlarm: tomorrow, now: alarm) == .wait(until: tomorrow.adding(seconds: -1800)))
    #expect(plan.step(nextAlarm: tomorrow, now: tomorrow.adding(seconds: -1800)) == .publish(alarm: tomorrow))
  }

  @Test func anAlarmSetInsideTheLeadGetsItAtOnce() {
    var plan = PreAlarmPlan(lead: .seconds(30 * 60))
    #expect(plan.step(nextAlarm: alarm, now: alarm.adding(seconds: -60)) == .publish(alarm: alarm))
  }

  @Test func noneWithoutAnAlarmAheadOrForOneDue() {
    var plan = PreAlarmPlan(lead: .seconds(30 * 60))
    #expect(plan.step(nextAlarm: nil, now: alarm) == .idle)
    #expect(plan.step(nextAlarm: alarm, now: alarm) == .idle)
    #expect(plan.step(nextAlarm: alarm, now: alarm.adding(seconds: 5)) == .idle)
    #expect(plan.announced == nil)
  }

  @Test func anAlarmMovedLaterGetsAPreAlarmOfItsOwn() {
    var plan = PreAlarmPlan(lead: .seconds(600))
    #expect(plan.step(nextAlarm: alarm, now: alarm.adding(seconds: -300)) == .publish(alarm: alarm))
    let moved = alarm.adding(seconds: 3600)
    #expect(
      plan.step(nextAlarm: moved, now: alarm.adding(seconds: -200))
        == .wait(until: moved.adding(seconds: -600)))
    #expect(plan.preAlarm(of: moved) == moved.adding(seconds: -600))
  }
}
