import CLinux
import Glibc
import PuckCore
import PuckStorage

extension Daemon {
  /// Every device as status and `puckctl test` show it, as last reported. A query: it changes
  /// nothing (a stuck reader is found by `refreshReaderProgress`).
  func deviceHealth() -> [DeviceHealth] {
    [readerHealth, audioHealth, buzzer.health, button.health, led.health]
  }

  /// Asks the reader whether its thread is stuck inside libnfc and takes the answer at once, so
  /// a status or test reply about to be built already shows the stall; the watchdog tick asks
  /// too. The reader also posts the stall as a health event, which then changes nothing.
  func refreshReaderProgress() {
    if let stalled = reader?.checkProgress() { readerHealth = stalled }
  }

  /// Whether the kernel's clock discipline says the time is synchronised (NTP), from adjtimex.
  func clockSynchronized() -> Bool? {
    var info = timex()
    let state = adjtimex(&info)
    if state < 0 { return nil }
    return state != TIME_ERROR && (info.status & STA_UNSYNC) == 0
  }

  func alarmViews() -> [AlarmView] {
    book.alarms.map { alarm in
      let next = nextFire(of: alarm)
      return AlarmView(
        alarm: alarm, next: next,
        nextLocal: next.map { Instant.iso8601(unixSeconds: $0.unixSeconds, offset: zone.offset(at: $0)) })
    }
  }

  /// What the verdict is computed from, as the daemon knows it now.
  func statusSnapshot(devices: [DeviceHealth], next: (alarm: Alarm, at: Instant)?, synchronized: Bool?)
    -> StatusSnapshot
  {
    // History failure without waiting entries is over: only both together are a reason (D5).
    let unrecorded = historyFailure.flatMap { failure in
      machine.pendingHistory.isEmpty
        ? nil : StatusSnapshot.UnrecordedHistory(count: machine.pendingHistory.count, error: failure)
    }
    return StatusSnapshot(
      simulated: options.simulate, devices: devices, pairedTag: pairedTag?.masked,
      pairingProblem: pairingProblem, hasEnabledAlarm: book.alarms.contains(where: \.enabled),
      nextAlarm: next.map { StatusSnapshot.NextAlarm(id: $0.alarm.id, requiresPuck: $0.alarm.requiresPuck) },
      clockSynchronized: synchronized, unreadableFiles: unreadableFiles.files, unrecordedHistory: unrecorded,
      stateProblems: stateProblems, configProblem: configProblem, soundProblem: soundProblem)
  }

  /// Everything `puckctl status` shows, with the verdict and every reason against it
  /// (`ProtectionVerdict`, in the core; docs/DESIGN.md R1).
  func dockStatus() -> DockStatus {
    let next = nextAlarm()
    let snapshot = statusSnapshot(devices: deviceHealth(), next: next, synchronized: clockSynchronized())
    let verdict = ProtectionVerdict(snapshot)
    return DockStatus(
      protected: verdict.protected, reasons: verdict.reasons.map(\.text), simulated: options.simulate,
      nextAlarm: next.map { $0.alarm.displayName }, nextAlarmAt: next?.at,
      guards: machine.guards.map(GuardView.init), pairedTag: snapshot.pairedTag, devices: snapshot.devices,
      clockSynchronized: snapshot.clockSynchronized, problems: snapshot.problems,
      missed: record.unacknowledgedMissed.map { "\($0.displayName) due \(describe($0.scheduledAt))" },
      zone: zoneName, missedTotal: record.unacknowledgedMissedCount, reasonCodes: verdict.reasons)
  }

  /// The one line `systemctl status` shows: "RINGING 06:30 alarm, retry 2 (bypass 2)" or
  /// "next alarm Mon 06:30".
  func statusLine() -> String {
    if let identity = ringing {
      let bypasses = machine.guards.last(where: \.isRinging)?.bypassCount ?? 0
      return "RINGING \(identity.description) (bypass \(bypasses))"
    }
    if let open = machine.guards.first, let retry = open.retryAt {
      return "wake-up open: \(open.ringIdentity.description), rings again \(describe(retry))"
    }
    var line =
      nextAlarm().map { "next alarm \(describe($0.at)) (\($0.alarm.displayName))" } ?? "no alarm scheduled"
    if options.simulate { line += " — SIMULATED, not protected" }
    return line
  }

  /// Tells systemd the status line when it changed.
  func updateStatus() {
    refreshReaderProgress()
    showLED(protected: dockStatus().protected)
    let line = statusLine()
    guard line != lastStatusLine else { return }
    lastStatusLine = line
    notifier.send("STATUS=\(line)")
  }
}
