import Testing

@testable import PuckCore

/// Handled points, catch-up and the missed backlog, with a manual clock.
@Suite struct ScheduleProgressTests {
  typealias F = ZoneFixtures

  private let daily = Recurrence.weekly(Set(Weekday.allCases))

  @Test func nextFireCountsFromTheHandledPointOrNowWhicheverIsLater() throws {
    let zone = ZoneRules.utc
    let alarm = Alarm(id: 1, time: WallTime(hour: 6, minute: 40), recurrence: daily)
    let now = try F.instant("2026-12-03T06:30:00Z")
    // The clock went back: 06:30 now, but everything up to 07:00 was handled.
    let behind = ScheduleProgress(scheduledThrough: try F.instant("2026-12-03T07:00:00Z"))
    #expect(try behind.nextFire(of: alarm, now: now, in: zone) == F.instant("2026-12-04T06:40:00Z"))
    let ahead = ScheduleProgress(scheduledThrough: try F.instant("2026-12-03T06:00:00Z"))
    #expect(try ahead.nextFire(of: alarm, now: now, in: zone) == F.instant("2026-12-03T06:40:00Z"))
  }

  @Test func aNewAlarmInTheReLivedWindowRings() throws {
    let zone = ZoneRules.utc
    let now = try F.instant("2026-12-03T06:30:00Z")
    var progress = ScheduleProgress(scheduledThrough: try F.instant("2026-12-03T07:00:00Z"))
    let old = Alarm(id: 1, time: WallTime(hour: 6, minute: 40), recurrence: daily)
    let new = Alarm(id: 2, time: WallTime(hour: 6, minute: 40), recurrence: daily)
    let started = progress.startCounting(2, at: now)
    #expect(started)
    #expect(progress.handledThrough == [2: now])
    let fire = try F.instant("2026-12-03T06:40:00Z")
    #expect(progress.nextFire(of: new, now: now, in: zone) == fire)
    #expect(progress.nextAlarm(among: [old, new], now: now, in: zone)?.alarm.id == 2)

    // At 06:40 the new one rings; the old one, already rung before the step, does not.
    let due = progress.catchUp(
      [old, new], now: fire, policy: MissedAlarmPolicy(), clockSynchronized: false, in: zone)
    #expect(due.ring.map(\.alarm.id) == [2])
    #expect(due.missed.isEmpty && !due.waitingForClock && !due.rescheduled)
    #expect(progress.handledThrough == [2: fire], "still behind the shared point, so kept")
    #expect(try progress.nextFire(of: new, now: fire, in: zone) == F.instant("2026-12-04T06:40:00Z"))

    // Once the clock passes the shared point, the own point is dropped.
    _ = progress.catchUp(
      [old, new], now: try F.instant("2026-12-03T07:05:00Z"), policy: MissedAlarmPolicy(),
      clockSynchronized: false, in: zone)
    #expect(progress.handledThrough.isEmpty)
    #expect(try progress.scheduledThrough == F.instant("2026-12-03T07:05:00Z"))
  }

  @Test func startCountingAtOrAfterTheSharedPointNeedsNoOwnPoint() throws {
    let now = try F.instant("2026-12-03T06:30:00Z")
    var progress = ScheduleProgress(scheduledThrough: now)
    let started = progress.startCounting(1, at: now)
    #expect(!started)
    #expect(progress.handledThrough.isEmpty)
  }

  @Test func aClockFarBehindWaitsUnlessSynchronised() throws {
    let zone = ZoneRules.utc
    let alarm = Alarm(id: 1, time: WallTime(hour: 6, minute: 40), recurrence: daily)
    let handled = try F.instant("2026-12-03T09:00:00Z")
    let now = try F.instant("2026-12-03T06:45:00Z")  // 2 h 15 min behind
    var waiting = ScheduleProgress(scheduledThrough: handled)
    let wait = waiting.catchUp(
      [alarm], now: now, policy: MissedAlarmPolicy(), clockSynchronized: nil, in: zone)
    #expect(wait.waitingForClock && wait.ring.isEmpty)
    #expect(waiting.scheduledThrough == handled, "nothing already rung rings again")
    // An alarm added while waiting is not one that rang: it rings at its time.
    let added = Alarm(id: 2, time: WallTime(hour: 6, minute: 50), recurrence: daily)
    waiting.startCounting(2, at: now)
    let addedFire = try F.instant("2026-12-03T06:50:00Z")
    #expect(waiting.nextAlarm(among: [alarm, added], now: now, in: zone)?.at == addedFire)
    let rings = waiting.catchUp(
      [alarm, added], now: addedFire, policy: MissedAlarmPolicy(), clockSynchronized: nil, in: zone)
    #expect(rings.waitingForClock && rings.ring.map(\.alarm.id) == [2])

    var synced = ScheduleProgress(scheduledThrough: handled, handledThrough: [1: now])
    let reset = synced.catchUp(
      [alarm], now: now, policy: MissedAlarmPolicy(), clockSynchronized: true, in: zone)
    #expect(reset.rescheduled && reset.ring.isEmpty)
    #expect(synced == ScheduleProgress(scheduledThrough: now))
  }

  @Test func catchUpRingsTheNewestWithinGraceAndLeavesTheRestAsRanges() throws {
    let zone = try F.zone("Europe/Bucharest")
    let alarm = Alarm(id: 3, time: WallTime(hour: 6, minute: 30), recurrence: daily)
    let handled = try F.instant("2020-03-30T05:00:00+03:00")
    let wednesday = try F.instant("2026-04-01T06:30:00+03:00")
    var progress = ScheduleProgress(scheduledThrough: handled)
    let now = wednesday.adding(seconds: 600)
    let due = progress.catchUp(
      [alarm], now: now, policy: MissedAlarmPolicy(), clockSynchronized: true, in: zone)
    #expect(due.ring.map(\.occurrence.instant) == [wednesday])
    #expect(due.missed == [MissedRange(alarm: alarm, after: handled, through: wednesday.adding(seconds: -1))])
    #expect(progress == ScheduleProgress(scheduledThrough: now))

    var disabled = alarm
    disabled.enabled = false
    var other = ScheduleProgress(scheduledThrough: handled)
    let none = other.catchUp(
      [disabled], now: now, policy: MissedAlarmPolicy(), clockSynchronized: true, in: zone)
    #expect(none.ring.isEmpty && none.missed.isEmpty)
  }

  @Test func theBacklogYieldsEveryOccurrenceOnceOldestFirstInBoundedSlices() throws {
    let zone = try F.zone("Europe/Bucharest")
    let early = Alarm(id: 1, time: WallTime(hour: 6, minute: 0), recurrence: daily)
    let weekly = Alarm(id: 2, time: WallTime(hour: 7, minute: 0), recurrence: .weekly([.monday]))
    let once = Alarm(
      id: 3, time: WallTime(hour: 5, minute: 0), recurrence: .once(LocalDate(year: 2026, month: 1, day: 10)))
    let after = try F.instant("2025-12-31T12:00:00Z")
    let through = try F.instant("2026-12-31T12:00:00Z")
    var backlog = MissedBacklog(ranges: [
      MissedRange(alarm: early, after: after, through: through),
      MissedRange(alarm: weekly, after: after, through: through),
      MissedRange(alarm: once, after: after, through: through),
    ])
    var all: [AlarmOccurrence] = []
    var slices = 0
    while !backlog.isEmpty {
      let slice = backlog.take(50, in: zone)
      #expect(slice.count <= 50)
      all += slice
      slices += 1
      #expect(slices < 100, "the backlog always shrinks")
      if slices >= 100 { break }
    }
    #expect(all.map(\.scheduledAt) == all.map(\.scheduledAt).sorted())
    #expect(Set(all.map { "\($0.alarmID)@\($0.scheduledAt)" }).count == all.count)
    #expect(all.filter { $0.alarmID == 1 }.count == 365)
    #expect(all.filter { $0.alarmID == 2 }.count == 52)
    #expect(all.filter { $0.alarmID == 3 }.map(\.isOneShot) == [true])
    #expect(slices == (365 + 52 + 1 + 49) / 50)
  }

  @Test func aDisabledAlarmInTheBacklogStillYieldsWhatItMissedWhileEnabled() throws {
    var alarm = Alarm(id: 1, time: WallTime(hour: 6, minute: 0), recurrence: daily)
    alarm.enabled = false
    var backlog = MissedBacklog(ranges: [
      MissedRange(
        alarm: alarm, after: try F.instant("2026-01-01T00:00:00Z"),
        through: try F.instant("2026-01-03T00:00:00Z"))
    ])
    #expect(backlog.take(10, in: .utc).count == 2)
    #expect(backlog.isEmpty)
  }

  /// The fast path (look at the grace period only, leave the rest as ranges, drain them in
  /// slices) must find exactly what walking every occurrence finds, across DST changes.
  @Test(arguments: ["Europe/Bucharest", "America/New_York", "Pacific/Apia", "UTC"])
  func catchUpAndBacklogFindWhatTheFullWalkFinds(zoneName: String) throws {
    let zone = try F.zone(zoneName)
    let times = [
      WallTime(hour: 2, minute: 30), WallTime(hour: 1, minute: 30),
      WallTime(hour: 23, minute: 59, second: 59),
    ]
    let recurrences: [Recurrence] = [daily, .weekly([.sunday, .wednesday])]
    let start = try F.instant("2011-01-01T00:00:00Z")
    var seed: UInt64 = 42
    func random(_ bound: Int64) -> Int64 {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int64((seed >> 33) % UInt64(bound))
    }
    for time in times {
      for recurrence in recurrences {
        let alarm = Alarm(id: 1, time: time, recurrence: recurrence)
        for _ in 0..<40 {
          let handled = start.adding(seconds: random(16 * 365 * 86400))
          let now = handled.adding(seconds: 1 + random(90 * 86400))
          let full = MissedAlarmPolicy().catchUp(alarm, lastEvaluated: handled, now: now, in: zone)
          var progress = ScheduleProgress(scheduledThrough: handled)
          let fast = progress.catchUp(
            [alarm], now: now, policy: MissedAlarmPolicy(), clockSynchronized: true, in: zone)
          var backlog = MissedBacklog(ranges: fast.missed)
          var missed: [Instant] = []
          while !backlog.isEmpty && missed.count <= full.missed.count {
            missed += backlog.take(7, in: zone).map(\.scheduledAt)
          }
          #expect(fast.ring.first?.occurrence == full.ring, "\(time) \(recurrence) \(handled)...\(now)")
          #expect(missed == full.missed.map(\.instant), "\(time) \(recurrence) \(handled)...\(now)")
        }
      }
    }
  }
}
