import PuckCore
import PuckStorage
import PuckSystem

/// What the dock says about itself: `puckctl status` (the verdict from the core's
/// `ProtectionVerdict` over a snapshot; docs/DESIGN.md R1), the alarm list, the one line
/// systemd shows (`STATUS=`), and the LED.
final class StatusReporter {
  private let dock: DockContext
  private let enforcement: Enforcement
  private let schedule: ScheduleKeeper
  private let devices: DockDevices
  private let flows: ControlFlows
  /// Takes the status after every render (Home Assistant's state).
  private let homeAssistant: HomeAssistantBridge
  /// What is locked in the hour before its time.
  private let lock: LockWindow
  private var lastLine = ""
  /// How many times status was rendered (`render`): once per loop turn at most, counted by tests.
  private(set) var renders = 0

  init(
    dock: DockContext, enforcement: Enforcement, schedule: ScheduleKeeper, devices: DockDevices,
    flows: ControlFlows, homeAssistant: HomeAssistantBridge, lock: LockWindow
  ) {
    self.homeAssistant = homeAssistant
    self.lock = lock
    self.dock = dock
    self.enforcement = enforcement
    self.schedule = schedule
    self.devices = devices
    self.flows = flows
  }

  /// The alarm list: each alarm as the schedule sees it (a pause of the whole dock is in its
  /// `pausedUntil`; the list says `dockPausedUntil` beside it), with its next fire.
  func alarmViews() -> [AlarmView] {
    let zone = dock.settings.zone
    let locked = lock.locked()
    return dock.state.alarms.alarms.map { alarm in
      let next = schedule.nextFire(of: alarm)
      return AlarmView(
        alarm: alarm, next: next,
        nextLocal: next.map { Instant.iso8601(unixSeconds: $0.unixSeconds, offset: zone.offset(at: $0)) },
        lockedUntil: locked.first { $0.alarmID == alarm.id }?.scheduledAt)
    }
  }

  /// The whole dock's pause while it lasts: no alarm rings before this date.
  var dockPausedUntil: LocalDate? {
    let today = dock.settings.zone.localDateTime(at: dock.time.instant).date
    return dock.state.alarms.book.pausedUntil.flatMap { $0 > today ? $0 : nil }
  }

  /// What the verdict is computed from, as the daemon knows it now.
  private func snapshot(next: (alarm: Alarm, at: Instant)?) -> StatusSnapshot {
    let pending = enforcement.machine.pendingHistory
    // History failure without waiting entries is over: only both together are a reason (D5).
    let unrecorded = dock.state.journal.failure.flatMap { failure in
      pending.isEmpty ? nil : StatusSnapshot.UnrecordedHistory(count: pending.count, error: failure)
    }
    return StatusSnapshot(
      simulated: dock.settings.simulated, devices: devices.health(),
      pairedTag: dock.state.pairing.pucks.first?.uid.masked,
      pairingProblem: dock.state.pairing.problem,
      hasEnabledAlarm: dock.state.alarms.alarms.contains(where: \.enabled),
      nextAlarm: next?.alarm,
      clockSynchronized: dock.time.isSynchronized(), unreadableFiles: dock.state.files.unreadable.files,
      unrecordedHistory: unrecorded, stateProblems: dock.state.files.problems,
      configProblem: dock.settings.configProblem,
      soundProblem: dock.settings.soundProblem, timerProblem: schedule.timerProblem(next: next),
      failedChecks: flows.preflight.last?.failures.map(\.name) ?? [])
  }

  /// Everything `puckctl status` shows, with the verdict and every reason against it; `next`
  /// is the next alarm when the caller has it already (it costs a walk over every alarm).
  func dockStatus(next known: (alarm: Alarm, at: Instant)?? = nil) -> DockStatus {
    let next = known ?? schedule.nextAlarm()
    let snapshot = snapshot(next: next)
    let verdict = ProtectionVerdict(snapshot)
    let record = dock.state.guardsFile.record
    var status = DockStatus(
      protected: verdict.protected, reasons: verdict.reasons.map(\.text), simulated: dock.settings.simulated,
      nextAlarm: next.map { $0.alarm.displayName }, nextAlarmAt: next?.at,
      guards: enforcement.guards.map(GuardView.init), pairedTag: snapshot.pairedTag,
      devices: snapshot.devices,
      clockSynchronized: snapshot.clockSynchronized, problems: snapshot.problems,
      missed: record.unacknowledgedMissed.map {
        "\($0.displayName) due \(dock.settings.describe($0.scheduledAt))"
      },
      zone: dock.settings.zoneName, missedTotal: record.unacknowledgedMissedCount,
      reasonCodes: verdict.reasons)
    status.overrideAt = flows.overrides.closesAt
    status.check = flows.preflight.last
    status.pucks = dock.state.pairing.pucks.map(PuckView.init)
    status.warnings = verdict.warnings
    status.awakeCheck = flows.awake.state.map {
      DockStatus.AwakeCheckView(askAt: $0.askAt, answerBy: $0.answerBy)
    }
    status.pausedUntil = dockPausedUntil
    status.locked = lock.locked().map(DockStatus.LockedAlarm.init)
    status.overrides = record.unacknowledgedOverrides.map {
      "wake-ups closed WITHOUT a scan \(dock.settings.describe($0))"
    }
    return status
  }

  /// The one line `systemctl status` shows: "RINGING 06:30 alarm, retry 2 (bypass 2)" or
  /// "next alarm Mon 06:30".
  func statusLine(next known: (alarm: Alarm, at: Instant)?? = nil) -> String {
    if let identity = devices.ringer.ringing {
      let bypasses = enforcement.guards.last(where: \.isRinging)?.bypassCount ?? 0
      return "RINGING \(identity.description) (bypass \(bypasses))"
    }
    if let answerBy = flows.awake.state?.answerBy {
      return
        "WAKE-UP CHECK: \(AwakeCheckState.howToAnswer(button: dock.settings.config.button != nil)) "
        + "by \(dock.settings.describe(answerBy))"
    }
    if let closesAt = flows.overrides.closesAt {
      return "OVERRIDE counting down: the wake-ups close \(dock.settings.describe(closesAt)) without a scan"
    }
    if let open = enforcement.guards.first, let retry = open.retryAt {
      return "wake-up open: \(open.ringIdentity.description), rings again \(dock.settings.describe(retry))"
    }
    let next = known ?? schedule.nextAlarm()
    var line =
      next.map { "next alarm \(dock.settings.describe($0.at)) (\($0.alarm.displayName))" }
      ?? "no alarm scheduled"
    if dock.settings.simulated { line += " — SIMULATED, not protected" }
    // A part the config names that failed shows in `systemctl status` too.
    let failed = StatusWarning.warnings(for: devices.health()).compactMap { warning -> String? in
      guard case .partFailed(let device, _, _) = warning else { return nil }
      return device.rawValue
    }
    if !failed.isEmpty { line = "\(failed.joined(separator: ", ")) FAILED — " + line }
    if flows.preflight.alertStanding(alarmAhead: next != nil), let failures = flows.preflight.last?.failures {
      line = "CHECK FAILED (\(failures.map(\.name).joined(separator: ", "))) — " + line
    }
    return line
  }

  /// Renders status where it is shown: the LED, Home Assistant's state, and systemd's status
  /// line when it changed. Once per loop turn in which something marked `.status`
  /// (`TurnEnd.run`), never from a component.
  func render() {
    renders += 1
    devices.readers.refreshProgress()
    // The next alarm once for the whole update: status, the LED and the line all read it.
    let next = schedule.nextAlarm()
    let status = dockStatus(next: next)
    let alert = flows.preflight.alertStanding(alarmAhead: next != nil) && !enforcement.isOpen
    devices.lines.showLED(steady: status.protected && !enforcement.isOpen, alert: alert)
    homeAssistant.statusChanged(status, next: next, wakeUps: enforcement.guards)
    let line = statusLine(next: next)
    guard line != lastLine else { return }
    lastLine = line
    dock.notifier.send("STATUS=\(line)")
  }

  /// Sends `READY=1` with the first status line.
  func ready() {
    lastLine = statusLine()
    dock.notifier.send("READY=1\nSTATUS=\(lastLine)")
  }
}
