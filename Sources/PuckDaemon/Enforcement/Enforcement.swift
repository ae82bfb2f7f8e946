import Glibc
import PuckCore
import PuckDevices
import PuckStorage
import PuckSystem

/// The wake guards: feeds events to the core's `WakeGuardMachine` and performs the effects it
/// decides, in order (docs/DESIGN.md §2, §3): saves, rings and silences, the ring timeout,
/// history, one-shot retirement, wrong-tag chirps. Also keeps the real-time deadlines of the
/// retries armed in this run, so a clock step does not move them.
final class Enforcement {
  private let dock: DockContext
  /// The ring, and the buzzer's wrong-puck chirp.
  private let devices: DockDevices
  /// Where each wake-up event Home Assistant shows goes.
  private let homeAssistant: HomeAssistantBridge
  /// What is locked before its time: a scan then ends it early (docs/DESIGN.md S12).
  private let lock: LockWindow
  private(set) var machine = WakeGuardMachine()
  /// CLOCK_BOOTTIME deadlines of the retries armed by a bypass in this run, by guard ID.
  private var retryDeadlines: [String: Int64] = [:]
  /// The occurrences whose guards closed in this run: a guards file that reads again later
  /// does not bring them back.
  private var closedOccurrences: Set<AlarmOccurrence> = []
  /// The ring timeout, on CLOCK_MONOTONIC; made last in `init`, as its handler needs `self`.
  private var ringTimer: TimerHandle!
  /// Called before a wake-up starts ringing (a rehearsal gives way).
  @Wired("Enforcement.willRing") var willRing: () -> Void
  /// Called after every event, with whether it had effects.
  @Wired("Enforcement.afterEvent") var afterEvent: (_ event: WakeEvent, _ changed: Bool) -> Void
  /// Called when journaled history is still waiting (the state retry arms).
  @Wired("Enforcement.onJournalChanged") var onJournalChanged: () -> Void
  /// Called with the entry of each wake-up an event closes, before any effect is performed: the
  /// record changes that follow from the close, saved in the same write as the close (the
  /// wake-up check after a scan, docs/DESIGN.md W17).
  @Wired("Enforcement.willClose") var willClose: (HistoryEntry) -> [RecordChange]

  init(dock: DockContext, devices: DockDevices, homeAssistant: HomeAssistantBridge, lock: LockWindow)
    throws(SystemError)
  {
    self.dock = dock
    self.devices = devices
    self.homeAssistant = homeAssistant
    self.lock = lock
    // Nobody stopped the ring in time, which counts as a bypass.
    ringTimer = try dock.loop.timer(.monotonic) { [unowned self] _ in
      Log.notice(
        "nobody stopped the ring within \(self.dock.settings.config.enforcement.ringTimeout); counting a bypass"
      )
      self.handle(.ringTimeout)
    }
  }

  var guards: [WakeGuard] { machine.guards }
  var isOpen: Bool { !machine.guards.isEmpty }
  var nextRetry: Instant? { machine.nextRetry }

  /// Takes the guards and journal of the loaded record, and records entries journaled by a run
  /// that crashed before recording them.
  func load() {
    machine = WakeGuardMachine(
      guards: dock.state.guardsFile.record.guards, pendingHistory: dock.state.guardsFile.record.pendingHistory
    )
    if !machine.pendingHistory.isEmpty { flushPendingHistory() }
  }

  /// Feeds one event to the machine and performs what it decides, in order; returns the
  /// effects. `changes` to the record that go with the event (and those `willClose` adds) are
  /// saved with the guards in one write: the machine's own `.persistGuards` when it decides
  /// one, else a write before any effect (docs/DESIGN.md D12).
  @discardableResult
  func handle(_ event: WakeEvent, with changes: [RecordChange] = []) -> [WakeEffect] {
    let now = dock.time.instant
    // How long the ring a stop from the socket or the network silences had been heard: the next
    // ring starts at the volume it reached (docs/DESIGN.md W18).
    let heard = machine.guards.compactMap(\.ringingSince).max().map {
      Duration.seconds(now.seconds(since: $0))
    }
    let effects = machine.handle(
      event, at: now, settings: dock.settings.guardSettings(pucks: dock.state.pairing.pairing.names))
    var changes = changes
    for case .recordHistory(let entry) in effects where entry.outcome.closesWakeUp {
      changes += willClose(entry)
    }
    for change in changes { dock.state.guardsFile.apply(change) }
    if !changes.isEmpty && !effects.contains(.persistGuards) { save() }
    for effect in effects {
      switch (event, effect) {
      case (.bypass, .armRetry(let id, let at)), (.socketStop, .armRetry(let id, let at)),
        (.networkBypass, .armRetry(let id, let at)), (.ringTimeout, .armRetry(let id, let at)):
        retryDeadlines[id] = dock.time.bootSeconds() + at.seconds(since: now)
      case (_, .cancelRetry(let id)):
        retryDeadlines[id] = nil
      case (.socketStop, .stopRing), (.networkBypass, .stopRing):
        if let heard { devices.ringer.carryLevel(afterHeard: heard) }
      default: break
      }
      perform(effect)
    }
    // The last wake-up closed: the mixer its rings raised is put back (docs/DESIGN.md V12).
    if !isOpen { devices.ringer.wakeUpEnded() }
    // A refused network press or socket stop changes nothing.
    afterEvent(
      event,
      effects.contains {
        switch $0 {
        case .networkBypassRefused, .socketStopRefused: return false
        default: return true
        }
      })
    return effects
  }

  /// A tag from the reader or a simulated scan, when no pairing waits for it: the open wake-ups'
  /// scan, or, inside the hour before an alarm, the one that ends it early (docs/DESIGN.md S12).
  func tagScanned(_ uid: TagUID, fresh: Bool, reader: String) {
    guard isOpen else {
      let locked = lock.locked(early: true)
      guard !locked.isEmpty else {
        Log.info("tag \(uid.masked) scanned; no wake-up is open")
        return
      }
      handle(.scannedBeforeAlarm(uid, fresh: fresh, reader: reader, occurrences: locked))
      return
    }
    handle(.tagScanned(uid, fresh: fresh, reader: reader))
  }

  private func perform(_ effect: WakeEffect) {
    switch effect {
    case .persistGuards:
      save()
    case .startRing(let identity):
      willRing()
      devices.ringer.ring(identity)
      homeAssistant.event(.fired)
    case .stopRing:
      devices.ringer.silence()
      homeAssistant.event(.silenced)
    case .armRingTimeout(let duration):
      do {
        try ringTimer.arm(after: duration)
      } catch {
        Log.error("ring timeout: \(error)")
      }
    case .cancelRingTimeout:
      ringTimer.disarm()
    case .armRetry(_, let at):
      Log.info("retry armed for \(dock.settings.describe(at))")
    case .cancelRetry:
      break  // The wall timer is recomputed from the guards after every event.
    case .recordHistory(let entry):
      recordHistory(entry)
      logHistory(entry)
    case .retireAlarm(let id):
      dock.state.alarms.retire([id])
    case .dismissOccurrence(let occurrence):
      dock.state.alarms.dismiss(
        occurrence.alarmID, on: dock.settings.zone.localDateTime(at: occurrence.scheduledAt).date)
    case .wrongTag(let uid):
      Log.notice("wrong puck \(uid.masked): this is not the paired tag")
      homeAssistant.event(.wrongTag)
      devices.ringer.cue(.wrongPuck)
    case .tagNotFresh(let uid):
      Log.notice("tag \(uid.masked) was already on the reader; lift it and present it again")
    case .networkBypassRefused, .socketStopRefused:
      break  // Told where the press or stop came from, which logs it at a bounded rate.
    }
  }

  private func logHistory(_ entry: HistoryEntry) {
    let name = entry.occurrence.displayName
    switch entry.outcome {
    case .woke:
      Log.notice("wake-up complete: \(name), \(entry.bypassCount) bypass(es), closed by the paired tag")
      homeAssistant.event(.resolved)
    case .stopped: Log.notice("\(name) stopped (no puck required)")
    case .overridden where entry.openedAt == nil:
      Log.warning(
        "\(name) due \(dock.settings.describe(entry.occurrence.scheduledAt)) OVERRIDDEN before it rang")
    case .overridden: Log.warning("\(name) OVERRIDDEN without a scan after \(entry.bypassCount) bypass(es)")
    case .upEarly:
      Log.notice(
        "up before the alarm: \(name) due \(dock.settings.describe(entry.occurrence.scheduledAt)) ends before it "
          + "rings, by the paired tag\(entry.reader.map { " on \($0)" } ?? "")")
      homeAssistant.event(.upEarly)
    case .missed:
      Log.warning(
        "\(name) due \(dock.settings.describe(entry.occurrence.scheduledAt)) was MISSED (puckd was not running)"
      )
      dock.state.guardsFile.apply(.missedNoted([entry.occurrence]))
    case .awake: Log.notice("wake-up check answered for \(name): up and about")
    case .reopened:
      Log.warning(
        "NO ANSWER to the wake-up check for \(name): the wake-up opens again and rings until a scan")
    }
  }

  /// Saves the guards file with the machine's guards and journal.
  func save() {
    dock.state.guardsFile.save(machine)
  }

  /// Changes the record and saves it with the machine's guards and journal: one write for
  /// changes that come with no wake-up event (the schedule's progress, the wake-up check
  /// asking, a slice of the missed backlog).
  func record(_ change: RecordChange) {
    dock.state.guardsFile.apply(change)
    save()
  }

  /// Changes the record and saves it for a request that must be answered with what is on disk:
  /// on a failed save the record is as it was and the error is thrown.
  func commit(_ change: RecordChange) throws(StorageError) {
    try dock.state.guardsFile.commit(change, saving: machine)
  }

  /// Performs `.recordHistory`. A closed guard's entry is journaled in the guards file; it is
  /// appended (with any older waiting entries first, in order) and then leaves the journal. A
  /// missed alarm's entry is appended directly.
  private func recordHistory(_ entry: HistoryEntry) {
    guard machine.pendingHistory.contains(entry) else {
      // Missed alarms and wake-up check answers are not journaled; a closing entry not pending
      // any more was appended by an earlier flush in this same round of effects.
      if !entry.outcome.closesWakeUp { dock.state.journal.appendAlone(entry) }
      return
    }
    closedOccurrences.insert(entry.occurrence)
    flushPendingHistory(fresh: entry)
  }

  /// Appends the journaled entries (`HistoryJournal.flush`) and saves what left the journal.
  func flushPendingHistory(fresh: HistoryEntry? = nil) {
    if dock.state.journal.flush(&machine, fresh: fresh) { save() }
    onJournalChanged()
  }

  /// Whether closed wake-ups wait in the journal.
  var historyIsWaiting: Bool { !machine.pendingHistory.isEmpty }

  /// The guards file reads again: the guards it holds that this run did not see are adopted
  /// and resumed (except those closed meanwhile), then everything is saved.
  func adopt(_ disk: EnforcementRecord) {
    let adopted = machine.adopt(disk.guards, pendingHistory: disk.pendingHistory, except: closedOccurrences)
    Log.notice(
      "state: \(EnforcementRecord.fileName) can be read again; saving the open wake-ups"
        + (adopted ? " (with those found in it)" : ""))
    save()
    if adopted {
      handle(.daemonStarted)
      if historyIsWaiting { flushPendingHistory() }
    }
  }

  /// The wall clock was stepped (settimeofday, NTP step, resume from suspend): alarms follow
  /// the new wall clock, and a retry armed by a bypass in this run keeps its real-time delay,
  /// measured on CLOCK_BOOTTIME (which neither steps nor stops in suspend). Retries loaded from
  /// disk keep their wall-clock instant: after downtime the wall clock is all there is, and a
  /// retry whose time has passed rings at once.
  func clockStepped() {
    Log.notice("the system clock was stepped; recomputing alarms")
    let wall = dock.time.instant
    let boot = dock.time.bootSeconds()
    var moved = false
    for (id, deadline) in retryDeadlines {
      if machine.moveRetry(ofGuard: id, to: wall.adding(seconds: deadline - boot)) {
        moved = true
      } else {
        retryDeadlines[id] = nil
      }
    }
    if moved { save() }
  }
}
