import FoundationEssentials
import Glibc
import PuckCore
import PuckStorage

/// The commands that talk to `puckd`: argument parsing, one request, output for a person or JSON.
struct ClientCommands {
  let client: DaemonClient
  let zone: ZoneRules
  let now: Instant

  static let help: [String: String] = [
    "status": """
    usage: puckctl status [--json]
    Next alarm, open wake-ups, reader/audio/buzzer health, pairing, clock sync, and whether the
    dock is protected. Exits 1 when it is not protected, and says why.
    """,
    "pair": """
    usage: sudo puckctl pair [--timeout 30s]
    Waits for a tag on the reader, then asks for the same tag again to confirm, and pairs it.
    Refused while a wake-up is open. In --simulate mode the scans come from 'puckctl scan UID'.
    """,
    "unpair": "usage: sudo puckctl unpair\nForgets the paired tag. Refused while a wake-up is open.",
    "alarm": """
    usage: puckctl alarm add HH:MM[:SS] [--days mon,tue,...|weekdays|weekends|daily]
                              [--date YYYY-MM-DD|today|tomorrow] [--label TEXT] [--no-puck]
           puckctl alarm list [--json]
           puckctl alarm rm ID | enable ID | disable ID | skip ID
    Without --days or --date an alarm rings once, at the next HH:MM. That, 'today' and
    'tomorrow' follow the dock's clock and time zone, not this shell's. 'skip' skips only the
    next occurrence. --no-puck: a stop ends it, no scan needed.
    """,
    "stop":
      "usage: puckctl stop\nSilences the ring (a bypass, like the dock button); it rings again after the retry delay.",
    "scan": "usage: puckctl scan UID\nDelivers a simulated scan (only to a daemon started with --simulate).",
    "override": """
    usage: sudo puckctl override [--yes]
    Closes every open wake-up WITHOUT a scan. Recorded in history as an override. Asks for
    confirmation unless --yes is given.
    """,
    "history": """
    usage: puckctl history [--json] [--limit N] [--before CURSOR]
    Past wake-ups, newest last: the newest 20, or N (at most 1000). When there are older ones,
    the last line is the command that shows the page before (--before takes the cursor it
    names; with --json the cursor is "nextBefore").
    """,
    "test":
      "usage: puckctl test [--seconds N]\nA short rehearsal: rings for N seconds (default 5) and checks every device.",
    "acknowledge":
      "usage: puckctl acknowledge\nClears the state problems and missed alarms that status shows.",
  ]

  /// Runs a daemon command and returns its exit code.
  func run(_ command: String, _ arguments: [String]) throws -> ExitCode {
    switch command {
    case "status": return try status(arguments)
    case "pair": return try pair(arguments)
    case "unpair": return try simple(.unpair, arguments)
    case "alarm": return try alarm(arguments)
    case "stop": return try simple(.stop, arguments)
    case "scan":
      let args = try ArgumentList(arguments)
      try args.expectPositionals(1, "the UID to scan (e.g. 04:A2:3B:11:22:33:44)")
      let uid: TagUID
      do {
        uid = try TagUID(parsing: args.positionals[0])
      } catch {
        throw UsageError(error.description)
      }
      return try simple(.scan(uid), [])
    case "override": return try override(arguments)
    case "history": return try history(arguments)
    case "test":
      let args = try ArgumentList(arguments, valued: ["seconds"])
      try args.expectPositionals(0, "")
      var seconds = 5
      if let text = args.value("seconds") {
        guard let value = Int(text), (1...60).contains(value) else {
          throw UsageError("--seconds takes 1-60")
        }
        seconds = value
      }
      print("ringing for \(seconds) s…")
      return try simple(.test(seconds: seconds), [])
    case "acknowledge": return try simple(.acknowledge, arguments)
    default: throw UsageError("unknown command '\(command)' (see puckctl --help)")
    }
  }

  private func simple(_ command: ControlCommand, _ arguments: [String]) throws -> ExitCode {
    let args = try ArgumentList(arguments)
    try args.expectPositionals(0, "")
    let reply = try client.send(command)
    return report(reply)
  }

  /// Prints a final reply's message (stdout on success, stderr on failure) and maps it to an exit code.
  private func report(_ reply: ControlReply) -> ExitCode {
    if reply.ok == true {
      if let message = reply.message { print(message) }
      return .success
    }
    let failure = reply.failure ?? ControlFailure(.failed, reply.message ?? "puckd refused")
    PuckCtl.printError("puckctl: \(failure.message)")
    switch failure.kind {
    case .badRequest: return .usage
    case .permissionDenied: return .permissionDenied
    case .refused: return .refused
    case .failed, .notFound: return .failure
    }
  }

  private func status(_ arguments: [String]) throws -> ExitCode {
    let args = try ArgumentList(arguments, switches: ["json"])
    try args.expectPositionals(0, "")
    let reply = try client.send(.status)
    guard reply.ok == true, let status = reply.status else { return report(reply) }
    if args.flag("json") {
      print(String(decoding: ControlWire.encode(ControlReply(ok: true, status: status)), as: UTF8.self))
    } else {
      print(StatusText(zone: zone, now: now).render(status))
    }
    return status.protected ? .success : .failure
  }

  private func pair(_ arguments: [String]) throws -> ExitCode {
    let args = try ArgumentList(arguments, valued: ["timeout"])
    try args.expectPositionals(0, "")
    var timeout = 30
    if let text = args.value("timeout") {
      let digits = text.hasSuffix("s") ? String(text.dropLast()) : text
      guard let value = Int(digits), (1...600).contains(value) else {
        throw UsageError("--timeout takes seconds, 1-600 (e.g. 30s)")
      }
      timeout = value
    }
    let reply = try client.send(.pair(timeoutSeconds: timeout)) { line in
      print(line)
      fflush(nil)
    }
    return report(reply)
  }

  private func override(_ arguments: [String]) throws -> ExitCode {
    let args = try ArgumentList(arguments, switches: ["yes"])
    try args.expectPositionals(0, "")
    if !args.flag("yes") {
      print("This ends every open wake-up without a scan, and is recorded in history.")
      print("Type 'override' to confirm: ", terminator: "")
      fflush(nil)
      guard readLine()?.split(separator: " ").first == "override" else {
        PuckCtl.printError("puckctl: not confirmed; nothing changed")
        return .failure
      }
    }
    return report(try client.send(.override))
  }

  private func history(_ arguments: [String]) throws -> ExitCode {
    let args = try ArgumentList(arguments, valued: ["limit", "before"], switches: ["json"])
    try args.expectPositionals(0, "")
    var query = HistoryQuery()
    if let text = args.value("limit") {
      guard let value = Int(text), HistoryQuery.isValidLimit(value) else {
        throw UsageError("--limit: \(HistoryQuery.limitRule)")
      }
      query.limit = value
    }
    if let text = args.value("before") {
      guard let cursor = Int(text), cursor >= 0 else {
        throw UsageError("--before takes the cursor a history page printed (puckctl history --before N)")
      }
      query.before = cursor
    }
    let reply = try client.send(.history(query))
    guard reply.ok == true else { return report(reply) }
    let entries = reply.history ?? []
    if args.flag("json") {
      let page = ControlReply(ok: true, history: entries, nextBefore: reply.nextBefore)
      print(String(decoding: ControlWire.encode(page), as: UTF8.self))
      return .success
    }
    if entries.isEmpty {
      // A page can be empty yet not the last: it crossed only lines that could not be read.
      if reply.nextBefore != nil {
        print("no readable wake-ups in this part of the history (see puckctl status)")
      } else {
        print(query.before == nil ? "no wake-ups yet" : "no older wake-ups")
      }
    }
    let text = StatusText(zone: zone, now: now)
    for entry in entries {
      let when = text.local(entry.closedAt)
      let what: String
      switch entry.outcome {
      case .woke:
        what = "woke with the puck after \(entry.bypassCount) bypass\(entry.bypassCount == 1 ? "" : "es")"
      case .stopped:
        what =
          "stopped (no puck needed) after \(entry.bypassCount) bypass\(entry.bypassCount == 1 ? "" : "es")"
      case .overridden: what = "OVERRIDDEN without a scan after \(entry.bypassCount) bypasses"
      case .missed: what = "MISSED (the dock was down)"
      }
      print("\(when)  \(entry.occurrence.displayName): \(what)")
    }
    if let older = reply.nextBefore {
      // The whole command, so the next page is one copy and paste away.
      let limit = args.value("limit") == nil ? "" : " --limit \(query.limit)"
      print("older wake-ups: puckctl history --before \(older)\(limit)")
    }
    return .success
  }

  private func alarm(_ arguments: [String]) throws -> ExitCode {
    guard let sub = arguments.first else {
      throw UsageError("alarm needs add, list, rm, enable, disable or skip")
    }
    let rest = Array(arguments.dropFirst())
    switch sub {
    case "add": return try alarmAdd(rest)
    case "list":
      let args = try ArgumentList(rest, switches: ["json"])
      try args.expectPositionals(0, "")
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
          if let next = view.next { line += "  next \(text.local(next))" }
          print(line)
        }
      }
      return .success
    case "rm", "enable", "disable", "skip":
      let args = try ArgumentList(rest)
      try args.expectPositionals(1, "the alarm ID (see puckctl alarm list)")
      guard let id = Int(args.positionals[0]) else {
        throw UsageError("'\(args.positionals[0])' is not an alarm ID")
      }
      let command: ControlCommand
      switch sub {
      case "rm": command = .alarmRemove(id)
      case "enable": command = .alarmSetEnabled(id, true)
      case "disable": command = .alarmSetEnabled(id, false)
      default: command = .alarmSkip(id)
      }
      return report(try client.send(command))
    default:
      throw UsageError("unknown alarm command '\(sub)' (add, list, rm, enable, disable, skip)")
    }
  }

  private func alarmAdd(_ arguments: [String]) throws -> ExitCode {
    let args = try ArgumentList(arguments, valued: ["days", "date", "label"], switches: ["no-puck"])
    try args.expectPositionals(1, "the alarm time HH:MM")
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
