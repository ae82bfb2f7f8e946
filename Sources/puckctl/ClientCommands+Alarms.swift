import FoundationEssentials
import PuckCore

/// `puckctl alarm list`, `add` and `edit`, and the dates they take.
extension ClientCommands {
  func alarmList(_ args: ArgumentList) throws -> ExitCode {
    let reply = try client.send(.alarmList)
    guard reply.ok == true else { return report(reply) }
    let alarms = reply.alarms ?? []
    if args.flag("json") {
      print(String(decoding: ControlWire.encode(ControlReply(ok: true, alarms: alarms)), as: UTF8.self))
    } else if alarms.isEmpty {
      print("no alarms — add one with: puckctl alarm add 06:30 --days weekdays")
    } else {
      let text = StatusText(zone: zone, now: now)
      for view in alarms {
        let alarm = view.alarm
        var line = "\(alarm.id)  \(alarm.time)  \(alarm.recurrence.summary)"
        if !alarm.label.isEmpty { line += "  \"\(alarm.label)\"" }
        if !alarm.enabled { line += "  (disabled)" }
        if !alarm.requiresPuck { line += "  (no puck)" }
        if let skipped = alarm.skippedDate { line += "  (skipping \(skipped))" }
        if let paused = alarm.pausedUntil, paused > zone.localDateTime(at: now).date {
          line += "  (paused until \(paused))"
        }
        if let next = view.next { line += "  next \(text.local(next))" }
        print(line)
      }
    }
    return .success
  }

  /// `--until`: a date, or today or tomorrow as the dock sees them.
  func until(_ args: ArgumentList) throws -> DraftDate {
    guard let text = args.value("until") else {
      throw UsageError("--until needs a date: YYYY-MM-DD, today or tomorrow (the first day it rings again)")
    }
    return try draftDate(text)
  }

  func draftDate(_ text: String) throws -> DraftDate {
    switch text.lowercased() {
    case "today": return .today
    case "tomorrow": return .tomorrow
    default: return .absolute(try LocalDate(parsing: text))
    }
  }

  func alarmEdit(_ args: ArgumentList) throws -> ExitCode {
    var change = AlarmEdit()
    if let text = args.value("time") { change.time = try WallTime(parsing: text) }
    switch (args.value("days"), args.value("date")) {
    case (.some, .some): throw ScheduleInputError.daysAndDate
    case (let days?, nil): change.recurrence = .weekly(try Weekday.parseSet(days))
    case (nil, let text?):
      switch try draftDate(text) {
      case .absolute(let date): change.recurrence = .once(date)
      case .today: change.recurrence = .today
      case .tomorrow: change.recurrence = .tomorrow
      }
    case (nil, nil): break
    }
    if let label = args.value("label") {
      guard Alarm.isAcceptableLabel(label) else { throw UsageError("--label: \(Alarm.labelRule)") }
      change.label = label
    }
    switch (args.flag("puck"), args.flag("no-puck")) {
    case (true, true): throw UsageError("--puck and --no-puck together")
    case (true, false): change.requiresPuck = true
    case (false, true): change.requiresPuck = false
    case (false, false): break
    }
    guard !change.isEmpty else {
      throw UsageError(
        "alarm edit needs something to change: --time, --days or --date, --label, --puck or --no-puck")
    }
    return report(try client.send(.alarmEdit(try alarmID(args), change)))
  }

  func alarmAdd(_ args: ArgumentList) throws -> ExitCode {
    let time = try WallTime(parsing: args.positionals[0])
    // Relative dates go to the daemon as they are: "today" is the dock's today, not this
    // shell's (puckctl may run in another zone).
    let recurrence: DraftRecurrence
    switch (args.value("days"), args.value("date")) {
    case (.some, .some): throw ScheduleInputError.daysAndDate
    case (let days?, nil): recurrence = .weekly(try Weekday.parseSet(days))
    case (nil, let text?):
      switch text.lowercased() {
      case "today": recurrence = .today
      case "tomorrow": recurrence = .tomorrow
      default: recurrence = .once(try LocalDate(parsing: text))
      }
    case (nil, nil):
      // Like a phone's clock: an alarm with no days rings once, at the next HH:MM.
      recurrence = .next
    }
    let label = args.value("label") ?? ""
    // Checked here too, so the person gets the rule before anything is sent.
    guard Alarm.isAcceptableLabel(label) else { throw UsageError("--label: \(Alarm.labelRule)") }
    let draft = AlarmDraft(
      time: time, recurrence: recurrence, label: label, requiresPuck: !args.flag("no-puck"))
    return report(try client.send(.alarmAdd(draft)))
  }
}
