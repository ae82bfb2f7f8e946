import CLinux
import Glibc
import PuckCore
import PuckStorage

extension Daemon {
  /// Every device as status and `puckctl test` show it.
  func deviceHealth() -> [DeviceHealth] {
    // A reader thread stuck inside libnfc shows up here too, not only on the watchdog tick.
    if let stalled = reader?.checkProgress() { readerHealth = stalled }
    return [readerHealth, audioHealth, buzzer.health, button.health, led.health]
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

  /// Everything `puckctl status` shows, with the verdict and every reason against it.
  func dockStatus() -> DockStatus {
    let devices = deviceHealth()
    // A state file that cannot be read or a wake-up missing from history comes first.
    let stateFiles = stateFileReasonsAndProblems()
    var reasons = stateFiles.reasons
    if options.simulate {
      reasons.append(
        "SIMULATED dock: there is no reader, scans come from 'puckctl scan' — nothing enforces the wake-up")
    } else if let reader = devices.first(where: { $0.name == "reader" }), reader.state != .ok {
      reasons.append("reader: \(reader.detail)")
    }
    if let problem = pairingProblem {
      reasons.append(problem)
    } else if pairedTag == nil {
      reasons.append("no tag paired — run: sudo puckctl pair")
    }
    let audioOK = audioHealth.state == .ok
    let buzzerOK = devices.contains { $0.name == "buzzer" && $0.state == .ok }
    if !audioOK && !buzzerOK {
      reasons.append(
        "nothing can ring: audio has a fault (\(audioHealth.detail)) and there is no working buzzer")
    }
    let next = nextAlarm()
    if !book.alarms.contains(where: \.enabled) {
      reasons.append("no enabled alarm — add one: puckctl alarm add 06:30 --days weekdays")
    } else if next == nil {
      reasons.append("no alarm will ring again (one-shots in the past?)")
    }
    if let alarm = next?.alarm, !alarm.requiresPuck {
      reasons.append("the next alarm (\(alarm.id)) does not require the puck (--no-puck)")
    }
    let synchronized = clockSynchronized()
    if synchronized == false {
      reasons.append("the system clock is not synchronised (no NTP yet?); alarms follow the clock as it is")
    }
    var problems = stateProblems + stateFiles.problems
    if let configProblem { problems.append(configProblem) }
    if let soundProblem { problems.append(soundProblem) }
    if !problems.isEmpty {
      reasons.append("a state or config file needs attention (see Problem lines)")
    }
    return DockStatus(
      protected: reasons.isEmpty, reasons: reasons, simulated: options.simulate,
      nextAlarm: next.map { $0.alarm.displayName }, nextAlarmAt: next?.at,
      guards: machine.guards.map(GuardView.init), pairedTag: pairedTag?.masked, devices: devices,
      clockSynchronized: synchronized, problems: problems,
      missed: record.unacknowledgedMissed.map { "\($0.displayName) due \(describe($0.scheduledAt))" },
      zone: zoneName, missedTotal: record.unacknowledgedMissedCount)
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
    showLED(protected: dockStatus().protected)
    let line = statusLine()
    guard line != lastStatusLine else { return }
    lastStatusLine = line
    notifier.send("STATUS=\(line)")
  }
}
