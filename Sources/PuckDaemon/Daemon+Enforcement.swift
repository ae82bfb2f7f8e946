import Glibc
import PuckCore
import PuckDevices
import PuckStorage
import PuckSystem

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
      // Pairing changes are refused while a wake-up is open (docs/DESIGN.md P3), and the
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
    // Both outputs, always: if one fails the other carries the ring (docs/DESIGN.md W2).
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
      record.noteMissed([entry.occurrence])
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
    SystemClock.boot.now().components.seconds
  }

  /// Rings every alarm occurrence that fell due up to now (the newest of each alarm, within
  /// the grace), queues the older ones to be recorded as missed, rings due retries, and re-arms
  /// the wall timer. Runs on the wall timer, on a clock step, at start, and before any alarm
  /// change (so a change never hides an occurrence that was just due).
  ///
  /// Its cost does not grow with the downtime: the missed occurrences are not enumerated here
  /// but saved as ranges and recorded by `recordMissedSlice`, a bounded batch per loop turn.
  func processDue() {
    let current = now
    if machine.nextRetry.map({ $0 <= current }) ?? false {
      handle(.retryDue)
    }
    var progress = record.progress
    let catchUp = progress.catchUp(
      book.alarms, now: current, policy: MissedAlarmPolicy(grace: config.enforcement.missedGrace),
      clockSynchronized: clockSynchronized(), in: zone)
    if catchUp.waitingForClock {
      Log.warning(
        "the clock (\(describe(current))) is behind alarms already handled "
          + "(\(record.scheduledThrough.map(describe) ?? "?")); waiting for it to be set")
    }
    if catchUp.rescheduled {
      Log.warning("the synchronised clock is more than an hour behind the schedule; rescheduling from now")
    }
    // Ring first, with the handled points not yet moved: a kill before they are saved finds the
    // same occurrences again, and the machine takes an occurrence whose guard is open as a
    // duplicate. Saving the points first could lose a ring.
    for due in catchUp.ring {
      consumeSkip(of: due.alarm.id, on: due.occurrence.date)
      handle(.alarmDue(AlarmOccurrence(alarm: due.alarm, scheduledAt: due.occurrence.instant)))
    }
    if progress != record.progress || !catchUp.missed.isEmpty {
      record.progress = progress
      record.missedBacklog.ranges += catchUp.missed
      saveRecord()
    }
    scheduleMissedSlice()
    refreshSchedule()
  }

  /// Missed occurrences recorded per slice: one history write and one fsync each, a few
  /// milliseconds, so the loop (and the watchdog) never waits long behind a catch-up.
  static let missedSlice = 256

  /// Queues the next slice of the missed backlog behind whatever the loop has to do.
  func scheduleMissedSlice() {
    guard !record.missedBacklog.isEmpty, !missedSliceQueued else { return }
    missedSliceQueued = true
    loop.inbox.post(.recordMissed)
  }

  /// Records the oldest slice of missed occurrences in history (one write, one fsync), then
  /// saves the backlog past them. A kill between the two writes leaves the slice in history and
  /// in the backlog; the entries already at the end of history are not written again.
  func recordMissedSlice() {
    guard !record.missedBacklog.isEmpty else { return }
    var backlog = record.missedBacklog
    let occurrences = backlog.take(Self.missedSlice, in: zone)
    let recordedAt = now
    let written: Set<MissedKey>
    do {
      // Twice the slice: a wake-up closed after the interrupted slice may follow it.
      written = Set(
        try history.last(2 * Self.missedSlice).filter { $0.outcome == .missed }.map(MissedKey.init))
    } catch {
      Log.error("could not read the end of the history: \(error); missed alarms are recorded later")
      armStateRetry()
      return
    }
    let entries = occurrences.filter { !written.contains(MissedKey($0)) }.map {
      HistoryEntry(
        outcome: .missed, occurrence: $0, openedAt: nil, closedAt: recordedAt, bypassCount: 0, rings: 0)
    }
    do {
      try history.append(contentsOf: entries)
    } catch {
      // Left in the backlog; the state retry timer (or the next processDue) tries again.
      Log.error("could not record missed alarms: \(error)")
      armStateRetry()
      return
    }
    record.missedBacklog = backlog
    record.noteMissed(occurrences)
    saveRecord()
    if let first = occurrences.first, let last = occurrences.last {
      Log.warning(
        "\(occurrences.count) alarm occurrence(s) from \(describe(first.scheduledAt)) to "
          + "\(describe(last.scheduledAt)) were MISSED (puckd was not running)")
    }
    // A one-shot that was missed is over.
    var retired = false
    for occurrence in occurrences where occurrence.isOneShot {
      guard let index = book.index(of: occurrence.alarmID), book.alarms[index].enabled else { continue }
      book.alarms[index].enabled = false
      retired = true
    }
    if retired {
      do {
        try saveBook()
      } catch {
        Log.error("could not retire missed one-shot alarms: \(error)")
      }
    }
    if backlog.isEmpty {
      Log.notice("catch-up done: \(record.unacknowledgedMissedCount) missed alarm(s) to acknowledge")
    }
    scheduleMissedSlice()
    updateStatus()
  }

  /// A skip applies to one occurrence; once that date has passed it is cleared.
  private func consumeSkip(of id: AlarmID, on date: LocalDate) {
    guard let index = book.index(of: id), let skipped = book.alarms[index].skippedDate, skipped <= date else {
      return
    }
    book.alarms[index].skippedDate = nil
    try? saveBook()
  }

  /// When `alarm` rings next: the one answer the timer, status, list, add and skip all use.
  func nextFire(of alarm: Alarm) -> Instant? {
    record.progress.nextFire(of: alarm, now: now, in: zone)
  }

  /// The next alarm occurrence after the handled points.
  func nextAlarm() -> (alarm: Alarm, at: Instant)? {
    record.progress.nextAlarm(among: book.alarms, now: now, in: zone)
  }

  /// A new or enabled alarm counts from now, even when the clock is behind the handled point
  /// (stepped back): saved before the alarm itself, so a kill between leaves no alarm that
  /// waits for a point it never had.
  func startCounting(_ id: AlarmID) {
    var progress = record.progress
    guard progress.startCounting(id, at: now) else { return }
    record.progress = progress
    saveRecord()
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
      } catch  where error.code == ECANCELED {
        // The clock was stepped and the timer not yet read: the kernel armed it all the same
        // and consumed the notice, so the wall timer's handler will never see this step. Handle
        // it from the loop (not here: processDue comes back to this function).
        loop.inbox.post(.clockStepped)
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

/// A missed occurrence as history identifies it, to find the ones already written.
private struct MissedKey: Hashable {
  let alarmID: AlarmID
  let scheduledAt: Instant

  init(_ occurrence: AlarmOccurrence) {
    alarmID = occurrence.alarmID
    scheduledAt = occurrence.scheduledAt
  }

  init(_ entry: HistoryEntry) {
    self.init(entry.occurrence)
  }
}
