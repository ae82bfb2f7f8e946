import PuckCore

/// `puckctl status` for a person: the verdict first, then each part on its own line.
struct StatusText {
  let zone: ZoneRules
  let now: Instant

  /// `Mon 2026-03-30 06:30:00` in the local zone.
  func local(_ instant: Instant) -> String {
    zone.describe(instant)
  }

  /// "in 7 h 12 min", "in 40 s".
  func relative(_ instant: Instant) -> String {
    let seconds = max(0, instant.seconds(since: now))
    if seconds < 60 { return "in \(seconds) s" }
    let minutes = (seconds + 59) / 60
    if minutes < 60 { return "in \(minutes) min" }
    return "in \(minutes / 60) h \(minutes % 60) min"
  }

  /// The verdict and why not, then each warning with its next step: status's first lines, and
  /// what `puckctl setup` ends with.
  static func verdict(_ status: DockStatus) -> [String] {
    var lines: [String] = []
    let warnings = status.warnings ?? []
    if status.protected {
      lines.append(warnings.isEmpty ? "PROTECTED" : "PROTECTED, with a WARNING:")
    } else {
      lines.append("NOT PROTECTED")
      for reason in status.reasonLines { lines.append("  - \(reason)") }
    }
    // A part the config names that failed is said here, where someone getting into bed looks,
    // with what to do about it.
    for warning in warnings {
      lines.append("  ! \(warning.text)")
      if let next = warning.next { lines.append("    next: \(next)") }
    }
    return lines
  }

  func render(_ status: DockStatus) -> String {
    var lines = Self.verdict(status)
    let warnings = status.warnings ?? []
    for view in status.guards {
      if view.ringing {
        lines.append(
          "Wake-up:  RINGING \(view.description) (bypassed \(view.bypassCount)×) — scan the puck to end it")
      } else if let retry = view.retryAt {
        lines.append(
          "Wake-up:  open, \(view.description) rings again \(relative(retry)) — scan the puck to end it")
      }
    }
    if let at = status.overrideAt {
      lines.append(
        "Override: counting down — every open wake-up closes WITHOUT a scan at \(local(at)) (\(relative(at))); "
          + "sudo puckctl override --cancel stops it")
    }
    if let check = status.awakeCheck {
      let hasButton = status.devices.contains { $0.device == .button && $0.state != .absent }
      if let answerBy = check.answerBy {
        lines.append(
          "Wake-up check: \(AwakeCheckState.howToAnswer(button: hasButton)) by \(local(answerBy)) "
            + "(\(relative(answerBy))), or the wake-up opens again")
      } else {
        lines.append(
          "Wake-up check: the dock asks whether you are up at \(local(check.askAt)) (\(relative(check.askAt)))"
        )
      }
    }
    if let paused = status.pausedUntil {
      lines.append(
        "Paused:   the whole dock, until \(paused) (alarms ring again that day; puckctl resume ends it)")
    }
    for locked in status.locked ?? [] {
      lines.append(
        "Locked:   alarm \(locked.alarmID), \(locked.description), until it rings at \(local(locked.until)) "
          + "(\(relative(locked.until))): nothing removes or delays it now; up already? scan the puck to end it"
      )
    }
    if let name = status.nextAlarm, let at = status.nextAlarmAt {
      lines.append("Next:     \(name) at \(local(at)) (\(relative(at)))")
    } else {
      lines.append("Next:     no alarm scheduled")
    }
    if let pucks = status.pucks, pucks.count > 1 {
      lines.append("Pucks:    " + pucks.map { "\($0.name) (\($0.tag))" }.joined(separator: ", "))
    } else {
      let name = status.pucks?.first.map { "\($0.name), " } ?? ""
      lines.append(
        "Tag:      "
          + (status.pairedTag.map { "paired (\(name)\($0))" } ?? "none paired — run: sudo puckctl pair"))
    }
    for device in status.devices {
      let name = (device.name.prefix(1).uppercased() + device.name.dropFirst() + ":").padding(10)
      // A configured part that does not work is FAILED, as in `puckctl check`; the wire keeps
      // the state's code, `fault`.
      let state = device.state == .fault ? "FAILED" : device.state.rawValue
      lines.append("\(name)\(state)\(device.detail.isEmpty ? "" : " — \(device.detail)")")
      // The next step is under the warning at the top when there is one.
      if let next = device.next, !warnings.contains(where: { $0.next == next }) {
        lines.append("          next: \(next)")
      }
    }
    switch status.clockSynchronized {
    case true?: lines.append("Clock:    synchronised (\(status.zone))")
    case false?:
      lines.append("Clock:    NOT synchronised (\(status.zone)) — alarms follow the clock as it is")
    case nil: lines.append("Clock:    synchronisation unknown (\(status.zone))")
    }
    if let check = status.check {
      // When it ran and what each part found; the details are one command away.
      let parts = check.parts.map { "\($0.name) \($0.ok ? "ok" : "FAILED")" }.joined(separator: ", ")
      lines.append(
        "Check:    \(check.passed ? check.warnings.isEmpty ? "passed" : "passed with a WARNING" : "FAILED") "
          + "\(local(check.at)) (\(check.trigger.rawValue)): \(parts) "
          + "— details: puckctl check")
    }
    for problem in status.problems { lines.append("Problem:  \(problem)") }
    // The daemon sends the newest few; after a long downtime the rest are only counted.
    if let total = status.missedTotal, total > status.missed.count {
      lines.append("Missed:   … and \(total - status.missed.count) more before these (see puckctl history)")
    }
    for missed in status.missed { lines.append("Missed:   \(missed)") }
    let overrides = status.overrides ?? []
    for override in overrides { lines.append("Override: \(override)") }
    if !status.problems.isEmpty || !status.missed.isEmpty || !overrides.isEmpty {
      lines.append("          (clear these with: puckctl acknowledge)")
    }
    return lines.joined(separator: "\n")
  }
}

extension StatusText {
  /// One history entry for a person: when it ended, the alarm, how, and what it took.
  /// `Mon 2026-03-02 06:41:12  06:30 alarm: woke with the puck …:33:44 on dock, 11 min 12 s
  /// after the first ring (06:30:00); 2 bypasses`.
  func historyLine(_ entry: HistoryEntry) -> String {
    let firstRing = entry.openedAt.map { opened -> String in
      let first = Instant.iso8601(unixSeconds: opened.unixSeconds, offset: zone.offset(at: opened))
      return " (\(first.split(separator: "T").last.map { String($0.prefix(8)) } ?? first))"
    }
    return
      "\(local(entry.closedAt))  \(entry.occurrence.displayName): \(entry.ending(firstRing: firstRing ?? ""))"
  }
}

extension String {
  fileprivate func padding(_ width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }
}
