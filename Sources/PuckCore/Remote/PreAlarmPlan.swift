/// When the pre-alarm for wake-up lights goes out (docs/DESIGN.md M10): `lead` before the next
/// alarm, once per alarm. Pure: the daemon's Home Assistant bridge asks it after every status
/// change and when its timer fires, and arms the timer for the instant it is told.
///
/// The pre-alarm only tells Home Assistant something; nothing about it can end, silence or delay
/// a wake-up.
public struct PreAlarmPlan: Hashable, Sendable {
  /// `[homeassistant] pre_alarm`: how long before each alarm.
  public var lead: Duration
  /// The alarm whose pre-alarm went out last; it is not sent again.
  public private(set) var announced: Instant?

  /// What to do now.
  public enum Step: Hashable, Sendable {
    /// Send the pre-alarm of the alarm at `alarm` now.
    case publish(alarm: Instant)
    /// Nothing yet: look again at `at` (the timer).
    case wait(until: Instant)
    /// No alarm ahead whose pre-alarm is still to go: no timer.
    case idle
  }

  public init(lead: Duration) {
    self.lead = lead
  }

  /// The pre-alarm instant of the alarm at `alarm`.
  public func preAlarm(of alarm: Instant) -> Instant {
    alarm.adding(seconds: -lead.components.seconds)
  }

  /// The pre-alarm of `alarm` could not be sent (the broker is not connected): the next step
  /// before the alarm sends it, late rather than never.
  public mutating func notSent(alarm: Instant) {
    if announced == alarm { announced = nil }
  }

  /// The step for `nextAlarm` at `now`. An alarm set less than `lead` ahead gets its pre-alarm at
  /// once (a shorter sunrise rather than none); a past or already announced alarm gets none.
  public mutating func step(nextAlarm: Instant?, now: Instant) -> Step {
    guard let alarm = nextAlarm, now < alarm, announced != alarm else { return .idle }
    let due = preAlarm(of: alarm)
    guard now >= due else { return .wait(until: due) }
    announced = alarm
    return .publish(alarm: alarm)
  }
}
