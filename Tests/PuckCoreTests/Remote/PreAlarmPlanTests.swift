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

  @Test func oneNotSentGoesOutAtTheNextStepBeforeTheAlarm() {
    var plan = PreAlarmPlan(lead: .seconds(600))
    #expect(plan.step(nextAlarm: alarm, now: alarm.adding(seconds: -600)) == .publish(alarm: alarm))
    plan.notSent(alarm: alarm)
    #expect(plan.step(nextAlarm: alarm, now: alarm.adding(seconds: -100)) == .publish(alarm: alarm))
    #expect(plan.step(nextAlarm: alarm, now: alarm.adding(seconds: -99)) == .idle)
    plan.notSent(alarm: alarm)
    #expect(plan.step(nextAlarm: alarm, now: alarm) == .idle, "never after the alarm")
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

/// What Home Assistant gets of the pre-alarm and the label (docs/DESIGN.md M7, M10).
@Suite struct HomeAssistantPreAlarmPayloadTests {
  @Test func thePreAlarmSensorIsATimestampSensorLikeTheNextAlarm() throws {
    let discovery = HomeAssistantDiscovery(
      dock: "bedroom", prefix: "homeassistant", readers: [], version: "1")
    let configs = discovery.messages.map { ($0.topic, String(decoding: $0.payload, as: UTF8.self)) }
    let preAlarm = try #require(
      configs.first { $0.0 == "homeassistant/sensor/puckalarm_bedroom/pre_alarm/config" })
    #expect(preAlarm.1.contains(#""state_topic":"puckalarm/dock/bedroom/pre_alarm""#))
    #expect(preAlarm.1.contains(#""device_class":"timestamp""#))
    #expect(preAlarm.1.contains(#""availability_mode":"all""#))
    #expect(preAlarm.1.contains("value_json.pre_alarm else 'offline'"))
    #expect(preAlarm.1.contains("value_json.next_alarm_label"), "the label as an attribute")
    let event = try #require(configs.first { $0.0.hasSuffix("event/puckalarm_bedroom/wake_up/config") })
    #expect(event.1.contains(#""pre_alarm""#))
  }

  @Test func theStateCarriesThePreAlarmAndTheLabel() {
    var state = HomeAssistantState()
    let none = String(decoding: state.payload, as: UTF8.self)
    #expect(none.contains(#""next_alarm_label":null"#) && none.contains(#""pre_alarm":null"#))
    #expect(state.timestamps.allSatisfy { $0.text == nil }, "nothing on the timestamp topics")
    state.nextAlarm = Instant(unixSeconds: 1_800)
    state.preAlarm = Instant(unixSeconds: 0)
    state.nextAlarmLabel = "sunrise"
    let some = String(decoding: state.payload, as: UTF8.self)
    #expect(some.contains(#""next_alarm_label":"sunrise""#))
    #expect(state.timestamps.first { $0.key == "pre_alarm" }?.text == Instant(unixSeconds: 0).codingText)
    let event = String(
      decoding: HomeAssistantEvent.preAlarm.payload(["label": .string("sunrise")]), as: UTF8.self)
    #expect(event == #"{"event_type":"pre_alarm","label":"sunrise"}"#)
  }
}
