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
    let current = now
    let effects = machine.handle(event, at: current, settings: guardSettings)
    for effect in effects {
      switch (event, effect) {
      case (.bypass, .armRetry(let id, let at)), (.ringTimeout, .armRetry(let id, let at)):
        retryDeadlines[id] = Daemon.bootSeconds() + at.seconds(since: current)
      case (_, .cancelRetry(let id)):
        retryDeadlines[id] = nil
      default: break
      }
      perform(effect)
    }
    if pairing != nil && !machine.guards.isEmpty {
      // Pairing changes are refused while a wake-up is open (PRODUCT §2 item 11), and the
      // scans belong to the wake-up now.
      cancelPairing(because: "an alarm started ringing; pairing is refused until the wake-up is over")
    }
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
      recordHistory(entry)
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
    // Both outputs, always: if one fails the other carries the ring (PRODUCT §2 item 2).
    buzzer.start()
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

  /// The wall clock was stepped (settimeofday, NTP step, resume from suspend): alarms follow
  /// the new wall clock, and a retry armed by a bypass in this run keeps its real-time delay,
  /// measured on CLOCK_BOOTTIME (which neither steps nor stops in suspend). Retries loaded from
  /// disk keep their wall-clock instant: after downtime the wall clock is all there is, and a
  /// retry whose time has passed rings at once.
  func clockStepped() {
    Log.notice("the system clock was stepped; recomputing alarms")
    let wall = now
    let boot = Daemon.bootSeconds()
    var moved = false
    for (id, deadline) in retryDeadlines {
      if machine.moveRetry(ofGuard: id, to: wall.adding(seconds: deadline - boot)) {
        moved = true
      } else {
        retryDeadlines[id] = nil
      }
    }
    if moved { saveRecord() }
  }

  /// Seconds of CLOCK_BOOTTIME.
  static func bootSeconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_BOOTTIME, &time)
    return Int64(time.tv_sec)
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
      // The clock is more than an hour behind what was already handled. Usually a board
      // without an RTC booted with an old saved time and NTP will step it forward: keep the
      // handled point, so nothing already rung rings again. Only a synchronised clock is
      // trusted to say the handled point itself was wrong (saved under a bogus future time).
      guard clockSynchronized() == true else {
        Log.warning(
          "the clock (\(describe(current))) is behind alarms already handled (\(describe(through))); "
            + "waiting for it to be set")
        refreshSchedule()
        return
      }
      Log.warning(
        "the synchronised clock is \(through.seconds(since: current)) s behind the schedule; rescheduling from now"
      )
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
    zone.describe(instant)
  }
}
