import FoundationEssentials
import Glibc
import PuckClient
import PuckCore
import PuckStorage

/// The commands that talk to `puckd`: one request, parsed from the command table, and its
/// answer for a person or as JSON.
struct ClientCommands {
  let client: DaemonClient
  let zone: ZoneRules
  let now: Instant

  /// Sends `request` and shows the answer; returns the exit code.
  func run(_ request: ControlRequest) throws -> ExitCode {
    switch request.name {
    case .unpair: return try unpair(request)
    case .override: return try override(request)
    case .history where request.flag(.csv): return try historyCSV(request)
    case .stats: return try stats(request)
    case .test: printProgress("ringing for \(request.integer(.seconds) ?? 0) s…")
    default: break
    }
    let reply = try client.send(request, progress: printProgress)
    // A failed check still carries its report: it is shown like a passed one.
    guard reply.ok == true || reply.check != nil else { return report(reply) }
    if request.flag(.json) {
      // The reply as puckd sent it, without the text for a person.
      var plain = reply
      plain.message = nil
      print(String(decoding: ControlWire.encode(plain), as: UTF8.self))
    } else {
      let text = StatusText(zone: zone, now: now)
      switch request.name {
      case .status: reply.status.map { print(text.render($0)) }
      case .check: reply.check.map { print(Self.checkLines($0).joined(separator: "\n")) }
      case .pucks: printPucks(reply.pucks ?? [], text)
      case .alarmList: printAlarms(reply, text)
      case .history: printHistory(reply, request, text)
      default: return report(reply)
      }
    }
    if let status = reply.status { return status.protected ? .success : .failure }
    if let check = reply.check { return check.passed ? .success : .failure }
    return .success
  }

  /// A progress line of a long request (pair, test, override), shown as it comes: it is
  /// puckctl's output on stdout, flushed so a pipe or a waiting person sees it at once.
  private func printProgress(_ line: String) {
    print(line)
    fflush(nil)
  }

  /// Prints a final reply's message (stdout on success, stderr on failure) and maps it to an exit code.
  func report(_ reply: ControlReply) -> ExitCode {
    if reply.ok == true {
      if let message = reply.message { print(message) }
      return reply.nothingToDo == true ? .nothingToDo : .success
    }
    let failure = reply.failure ?? ControlFailure(.failed, reply.message ?? "puckd refused")
    PuckCtl.printError("puckctl: \(failure.message)")
    return ExitCode(failure.kind)
  }

  /// The pre-flight check's report: the verdict, one line per part, and under a failed part
  /// what to do next (`puckctl check`, and the end of `puckctl setup`).
  static func checkLines(_ report: PreflightReport) -> [String] {
    var lines = [report.verdict]
    for part in report.parts {
      lines.append("  \(part.line)")
      if let next = part.next { lines.append("      next: \(next)") }
    }
    return lines
  }

  /// Forgets a puck; the last one, while an enabled alarm needs one, only after the word
  /// `unpair` is typed (or with --yes).
  private func unpair(_ request: ControlRequest) throws -> ExitCode {
    let reply = try client.send(request)
    guard reply.ok != true, reply.failure?.kind == .refused, reply.failure?.message.contains("--yes") == true
    else { return report(reply) }
    print(reply.failure?.message ?? "")
    guard confirmed("unpair") else { return .failure }
    var again = request.arguments
    again[.yes] = .flag(true)
    return report(try client.send(ControlRequest(.unpair, again)))
  }

  /// Whether the person typed `word` to confirm; says so on stderr when not.
  private func confirmed(_ word: String) -> Bool {
    print("Type '\(word)' to confirm: ", terminator: "")
    fflush(nil)
    guard readLine()?.split(separator: " ").first.map(String.init) == word else {
      PuckCtl.printError("puckctl: not confirmed; nothing changed")
      return false
    }
    return true
  }

  /// The paired pucks: name, tag, when paired, when last seen.
  private func printPucks(_ pucks: [PuckView], _ text: StatusText) {
    if pucks.isEmpty { print("no puck paired — run: sudo puckctl pair") }
    for puck in pucks {
      let seen = puck.lastSeen.map { "last seen \(text.local($0))" } ?? "not seen since pairing"
      print("\(puck.name)  \(puck.tag)  paired \(text.local(puck.pairedAt)), \(seen)")
    }
  }

  private func override(_ request: ControlRequest) throws -> ExitCode {
    if !request.flag(.cancel) && !request.flag(.yes) {
      print("This ends every open wake-up without a scan, and is recorded in history.")
      guard confirmed("override") else { return .failure }
    }
    // The daemon counts down (override_delay) before it closes anything; Ctrl-C stops it.
    return report(try client.send(request, progress: printProgress))
  }

  private func printAlarms(_ reply: ControlReply, _ text: StatusText) {
    let alarms = reply.alarms ?? []
    if alarms.isEmpty { print("no alarms — add one with: puckctl alarm add 06:30 --days weekdays") }
    let today = zone.localDateTime(at: now).date
    var ownPause = false
    for view in alarms {
      let alarm = view.alarm
      var line = "\(alarm.id)  \(alarm.time)  \(alarm.recurrence.summary)"
      if !alarm.label.isEmpty { line += "  \"\(alarm.label)\"" }
      if !alarm.enabled { line += "  (disabled)" }
      if !alarm.requiresPuck { line += "  (no puck)" }
      if let skipped = alarm.skippedDate { line += "  (skipping \(skipped))" }
      // The dock's pause and the alarm's own apart, as each is lifted by its own resume; the
      // later one is the one that holds.
      if let paused = alarm.pausedUntil, paused > today {
        ownPause = ownPause || paused != reply.pausedUntil
        line += paused == reply.pausedUntil ? "  (dock paused until \(paused))" : "  (paused until \(paused))"
      }
      if let next = view.next { line += "  next \(text.local(next))" }
      if view.lockedUntil != nil { line += "  (locked)" }
      print(line)
    }
    if alarms.contains(where: { $0.lockedUntil != nil }) {
      print(
        "(locked): it rings within lock_before; until then nothing removes or delays it. "
          + "Up already? Scan the puck: it ends today's alarm")
    }
    if ownPause { print("(paused until …): 'puckctl alarm resume ID' ends that alarm's own pause") }
    if reply.pausedUntil != nil {
      print("(dock paused until …): the whole dock is paused; 'puckctl resume' ends it")
    }
  }

  /// `history --csv`: every page back to the start (or the cursor), oldest first.
  private func historyCSV(_ request: ControlRequest) throws -> ExitCode {
    print(HistoryCSV.header)
    for entry in try historyEntries(since: nil, before: request.integer(.before)) {
      print(HistoryCSV.row(entry, zone: zone))
    }
    return .success
  }

  private func printHistory(_ reply: ControlReply, _ request: ControlRequest, _ text: StatusText) {
    let entries = reply.history ?? []
    if entries.isEmpty {
      // A page can be empty yet not the last: it crossed only lines that could not be read.
      if reply.nextBefore != nil {
        print("no readable wake-ups in this part of the history (see puckctl status)")
      } else {
        print(request.integer(.before) == nil ? "no wake-ups yet" : "no older wake-ups")
      }
    }
    for entry in entries { print(text.historyLine(entry)) }
    if let older = reply.nextBefore {
      // The whole command, so the next page is one copy and paste away.
      let limit =
        request.integer(.limit).flatMap { $0 == HistoryQuery.defaultLimit ? nil : " --limit \($0)" } ?? ""
      print("older wake-ups: puckctl history --before \(older)\(limit)")
    }
  }
}
