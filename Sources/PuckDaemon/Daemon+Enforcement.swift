import Glibc
import PuckCore
import PuckDevices
import PuckStorage

extension Daemon {
  /// The current wall-clock time, in whole seconds.
  var now: Instant { Instant.systemNow }

  var guardSettings: WakeGuardSettings {
    WakeGuardSettings(
      retryDelay: config.enforcement.retryDelay, ringTimeout: config.enforcement.ringTimeout,
      pairedTag: pairedTag)
  }

  /// Feeds one event to the wake-guard machine and performs what it decides, in order.
  func handle(_ event: WakeEvent) {
    let effects = machine.handle(event, at: now, settings: guardSettings)
    for effect in effects { perform(effect) }
    if !effects.isEmpty { refreshSchedule() }
  }

  private func perform(_ effect: WakeEffect) {
    switch effect {
    case .persistGuards:
      saveRecord()
    case .startRing(let identity):
      startRing(identity)
    case .stopRing:
      stopRing()
    case .armRingTimeout(let duration):
      do {
        try ringTimer.arm(after: duration)
      } catch {
        Log.error("ring timeout: \(error)")
      }
    case .cancelRingTimeout:
      ringTimer.disarm()
    case .armRetry(_, let at):
      Log.info("retry armed for \(describe(at))")
    case .cancelRetry:
      break  // The wall timer is recomputed from the guards after every event.
    case .recordHistory(let entry):
      do {
        try history.append(entry)
      } catch {
        Log.error("could not record history: \(error)")
      }
      logHistory(entry)
    case .retireAlarm(let id):
      guard let index = book.index(of: id) else { return }
      book.alarms[index].enabled = false
      do {
        try saveBook()
        Log.info("one-shot alarm \(id) retired")
      } catch {
        Log.error("could not retire alarm \(id): \(error)")
      }
    case .wrongTag(let uid):
      Log.notice("wrong puck \(uid.masked): this is not the paired tag")
      buzzer.chirpWrongPuck()
    case .tagNotFresh(let uid):
      Log.notice("tag \(uid.masked) was already on the reader; lift it and present it again")
    }
  }

  private func startRing(_ identity: RingIdentity) {
    if rehearsal != nil { endRehearsal(interrupted: true) }
    ringing = identity
    Log.notice("RINGING \(identity.description)")
    audio.start(
      sound: sound, startVolume: Double(config.audio.startVolumePercent) / 100, ramp: config.audio.ramp)
  }

  func stopRing() {
    if let identity = ringing { Log.notice("silenced \(identity.description)") }
    ringing = nil
    audio.stop()
    buzzer.stop()
  }

  private func logHistory(_ entry: HistoryEntry) {
    let name = entry.occurrence.displayName
    switch entry.outcome {
    case .woke:
      Log.notice("wake-up complete: \(name), \(entry.bypassCount) bypass(es), closed by the paired tag")
    case .stopped: Log.notice("\(name) stopped (no puck required)")
    case .overridden: Log.warning("\(name) OVERRIDDEN without a scan after \(entry.bypassCount) bypass(es)")
    case .missed:
      Log.warning("\(name) due \(describe(entry.occurrence.scheduledAt)) was MISSED (puckd was not running)")
      record.unacknowledgedMissed.append(entry.occurrence)
    }
  }

  /// A tag from the reader or a simulated scan: to pairing if it is waiting, else to the guard.
  func tagScanned(_ uid: TagUID, fresh: Bool) {
    if pairing != nil {
      pairingScan(uid, fresh: fresh)
      return
    }
    guard !machine.guards.isEmpty else {
      Log.info("tag \(uid.masked) scanned; no wake-up is open")
      return
    }
    handle(.tagScanned(uid, fresh: fresh))
  }

  /// The wall clock was stepped (settimeofday, NTP step, a board without RTC getting the time):
  /// alarms follow the new wall clock, but a pending retry keeps its real-time delay.
  func clockStepped() {
    let offset = Daemon.wallMinusMonotonic()
    let step = offset - wallMinusMonotonic
    wallMinusMonotonic = offset
    Log.notice("the system clock was stepped by \(step) s; recomputing alarms")
    if !machine.shiftRetries(by: step).isEmpty { saveRecord() }
  }

  /// `CLOCK_REALTIME - CLOCK_MONOTONIC` in whole seconds.
  static func wallMinusMonotonic() -> Int64 {
    var wall = timespec()
    var monotonic = timespec()
    clock_gettime(CLOCK_REALTIME, &wall)
    clock_gettime(CLOCK_MONOTONIC, &monotonic)
    let nanoseconds =
      (Int64(wall.tv_sec) - Int64(monotonic.tv_sec)) * 1_000_000_000 + Int64(wall.tv_nsec)
      - Int64(monotonic.tv_nsec)
    return (nanoseconds + 500_000_000) / 1_000_000_000
  }

  /// Rings or records every alarm occurrence that fell due up to now, rings due retries, and
  /// re-arms the wall timer. Runs on the wall timer, on a clock step, at start, and before any
  /// alarm change (so a change never hides an occurrence that was just due).
  func processDue() {
    let current = now
    if machine.nextRetry.map({ $0 <= current }) ?? false {
      handle(.retryDue)
    }
    var through = record.scheduledThrough ?? current
    if through.seconds(since: current) > 3600 {
      // The clock went back by more than an hour (a board that booted with a wrong future
      // time, then synced): start over from now rather than wait for the old time to return.
      Log.warning("the clock went back by \(through.seconds(since: current)) s; rescheduling from now")
      through = current
    }
    if through < current {
      let policy = MissedAlarmPolicy(grace: config.enforcement.missedGrace)
      for alarm in book.alarms where alarm.enabled {
        let catchUp = policy.catchUp(alarm, lastEvaluated: through, now: current, in: zone)
        for missed in catchUp.missed {
          handle(.alarmMissed(AlarmOccurrence(alarm: alarm, scheduledAt: missed.instant)))
        }
        if let ring = catchUp.ring {
          consumeSkip(of: alarm.id, on: ring.date)
          handle(.alarmDue(AlarmOccurrence(alarm: alarm, scheduledAt: ring.instant)))
        }
      }
    }
    if record.scheduledThrough != max(through, current) {
      record.scheduledThrough = max(through, current)
      saveRecord()
    }
    refreshSchedule()
  }

  /// A skip applies to one occurrence; once that date has passed it is cleared.
  private func consumeSkip(of id: AlarmID, on date: LocalDate) {
    guard let index = book.index(of: id), let skipped = book.alarms[index].skippedDate, skipped <= date else {
      return
    }
    book.alarms[index].skippedDate = nil
    try? saveBook()
  }

  /// The next alarm occurrence after the handled point.
  func nextAlarm() -> (alarm: Alarm, at: Instant)? {
    let after = max(record.scheduledThrough ?? now, now)
    var best: (Alarm, Instant)?
    for alarm in book.alarms {
      guard let fire = Schedule.nextFire(of: alarm, after: after, in: zone) else { continue }
      if best == nil || fire < best!.1 { best = (alarm, fire) }
    }
    return best
  }

  /// Arms the wall timer for the earliest of the next alarm and the next retry, the pre-alarm
  /// device check a minute before the alarm, and the reader's polling.
  func refreshSchedule() {
    updateReaderPolling()
    let next = nextAlarm()
    if let at = next?.at, at.seconds(since: now) > 60 {
      try? preAlarmTimer.arm(at: at.adding(seconds: -60))
    } else {
      preAlarmTimer.disarm()
    }
    let deadlines = [next?.at, machine.nextRetry].compactMap { $0 }
    if let earliest = deadlines.min() {
      do {
        try wallTimer.arm(at: earliest)
      } catch {
        Log.error("could not arm the alarm timer: \(error)")
      }
    } else {
      wallTimer.disarm()
    }
    updateStatus()
  }

  func describe(_ instant: Instant) -> String {
    let local = zone.localDateTime(at: instant)
    let s = local.secondsOfDay
    let two = { (v: Int) in v < 10 ? "0\(v)" : "\(v)" }
    return "\(local.date.weekday) \(local.date) \(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))"
  }
}
