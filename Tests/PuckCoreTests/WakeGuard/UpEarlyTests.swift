import Testing

@testable import PuckCore

/// The hour before as values (docs/DESIGN.md S12): `AlarmLock` judges a change by what it does
/// to the locked occurrences, and the machine ends occurrences before they ring, journal first.
@Suite("the hour before, as values")
struct UpEarlyTests {
  private let zone = ZoneRules.utc
  /// Monday 2 March 2026, 05:30 UTC.
  private let now = Instant(utcDate: LocalDate(year: 2026, month: 3, day: 2), secondsOfDay: 5 * 3600 + 1800)
  private let paired = TagUID.testPuck
  private let stranger = TagUID.testStranger

  private func book(_ alarms: Alarm...) -> AlarmBook {
    AlarmBook(alarms: alarms, nextID: alarms.count + 1)
  }

  private func daily(_ id: AlarmID, _ hour: Int, _ minute: Int) -> Alarm {
    Alarm(
      id: id, time: WallTime(hour: hour, minute: minute), recurrence: .weekly(Set(Weekday.allCases)),
      label: "",
      requiresPuck: true)
  }

  @Test("locked: each alarm's next occurrence within lock_before; none with a zero lock")
  func lockedOccurrences() {
    let alarms = book(daily(1, 6, 0), daily(2, 6, 45), daily(3, 5, 45))
    let lock = AlarmLock(lockBefore: .seconds(3600))
    let locked = lock.locked(in: alarms, progress: ScheduleProgress(), now: now, zone: zone)
    #expect(locked.map(\.alarmID) == [3, 1], "05:45 and 06:00, soonest first; 06:45 is 75 min away")
    #expect(
      AlarmLock(lockBefore: .zero).locked(in: alarms, progress: ScheduleProgress(), now: now, zone: zone)
        .isEmpty)
  }

  @Test(
    "a change is refused by what it does: later, gone, other days, no puck, paused; earlier and relabelled pass"
  )
  func judgedByWhatItDoes() {
    let before = book(daily(1, 6, 0))
    let lock = AlarmLock(lockBefore: .seconds(3600))
    func refused(_ change: (inout Alarm) -> Void) -> Bool {
      var after = before
      change(&after.alarms[0])
      return lock.refusal(from: before, to: after, progress: ScheduleProgress(), now: now, zone: zone) != nil
    }
    #expect(refused { $0.time = WallTime(hour: 6, minute: 1) })
    #expect(refused { $0.enabled = false })
    #expect(refused { $0.requiresPuck = false })
    #expect(refused { $0.recurrence = .weekly([.tuesday]) })
    #expect(refused { $0.skippedDate = LocalDate(year: 2026, month: 3, day: 2) })
    #expect(refused { $0.pausedUntil = LocalDate(year: 2026, month: 3, day: 3) })
    #expect(refused { $0.time = WallTime(hour: 5, minute: 0) }, "earlier than now is tomorrow's")
    #expect(!refused { $0.time = WallTime(hour: 5, minute: 50) })
    #expect(!refused { $0.label = "up" })
    var gone = before
    gone.alarms.removeAll()
    #expect(lock.refusal(from: before, to: gone, progress: ScheduleProgress(), now: now, zone: zone) != nil)
    var dockPaused = before
    dockPaused.pausedUntil = LocalDate(year: 2026, month: 3, day: 3)
    #expect(
      lock.refusal(from: before, to: dockPaused, progress: ScheduleProgress(), now: now, zone: zone) != nil)
  }

  @Test(
    "a scan before the alarm journals the entries in the first write, then keeps each occurrence from ringing"
  )
  func scannedBeforeAlarmJournalsFirst() {
    var machine = WakeGuardMachine()
    let settings = WakeGuardSettings(pairedTag: paired)
    let at = now.adding(seconds: 1800)
    let repeating = AlarmOccurrence(
      alarmID: 1, label: "", time: WallTime(hour: 6, minute: 0), scheduledAt: at, requiresPuck: true,
      isOneShot: false)
    var oneShot = repeating
    oneShot.alarmID = 2
    oneShot.isOneShot = true
    let effects = machine.handle(
      .scannedBeforeAlarm(paired, fresh: true, reader: "dock", occurrences: [repeating, oneShot]), at: now,
      settings: settings)
    #expect(effects.first == .persistGuards)
    #expect(effects.dropFirst().prefix(2) == [.dismissOccurrence(repeating), .retireAlarm(2)])
    #expect(machine.pendingHistory.map(\.outcome) == [.upEarly, .upEarly])
    #expect(machine.pendingHistory.first?.reader == "dock")
    #expect(machine.guards.isEmpty)
    #expect(
      machine.handle(
        .scannedBeforeAlarm(stranger, fresh: true, reader: nil, occurrences: [repeating]),
        at: now, settings: settings) == [.wrongTag(stranger)])
    #expect(
      machine.handle(
        .scannedBeforeAlarm(paired, fresh: false, reader: nil, occurrences: [repeating]), at: now,
        settings: settings)
        == [.tagNotFresh(paired)])
  }
}
