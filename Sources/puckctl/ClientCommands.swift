import FoundationEssentials
import Glibc
import PuckCore
import PuckStorage

/// The commands that talk to `puckd`: argument parsing, one request, output for a person or JSON.
struct ClientCommands {
  let client: DaemonClient
  let zone: ZoneRules
  let now: Instant

  /// Runs a daemon command, typed as `word` and `arguments`, and returns its exit code.
  func run(_ word: String, _ arguments: [String]) throws -> ExitCode {
    var words = [word]
    var rest = arguments
    // A group word (`alarm`) takes its sub-command from the table too.
    let subcommands = CommandTable.subcommands(of: word)
    if let last = subcommands.last {
      guard let sub = rest.first else {
        throw UsageError("\(word) needs \(subcommands.dropLast().joined(separator: ", ")) or \(last)")
      }
      guard subcommands.contains(sub) else {
        throw UsageError("unknown \(word) command '\(sub)' (\(subcommands.joined(separator: ", ")))")
      }
      words.append(sub)
      rest.removeFirst()
    }
    guard let spec = CommandTable.spec(words: words) else {
      throw UsageError("unknown command '\(word)' (see puckctl --help)")
    }
    let args = try ArgumentList(rest, for: spec)
    switch spec.name {
    case .status: return try status(args)
    case .pair: return try pair(args)
    case .unpair: return try unpair(args)
    case .pucks: return try pucks(args)
    case .alarmAdd: return try alarmAdd(args)
    case .alarmList: return try alarmList(args)
    case .alarmRemove: return try simple(.alarmRemove(try alarmID(args)))
    case .alarmEnable: return try simple(.alarmSetEnabled(try alarmID(args), true))
    case .alarmDisable: return try simple(.alarmSetEnabled(try alarmID(args), false))
    case .alarmSkip: return try simple(.alarmSkip(try alarmID(args)))
    case .alarmEdit: return try alarmEdit(args)
    case .alarmPause: return try simple(.alarmPause(try alarmID(args), until: try until(args)))
    case .alarmResume: return try simple(.alarmPause(try alarmID(args), until: nil))
    case .pause: return try simple(.pause(until: try until(args)))
    case .resume: return try simple(.pause(until: nil))
    case .stop: return try simple(.stop)
    case .scan:
      let uid: TagUID
      do {
        uid = try TagUID(parsing: args.positionals[0])
      } catch {
        throw UsageError(error.description)
      }
      return try simple(.scan(uid))
    case .override: return try override(args)
    case .history: return try history(args)
    case .test:
      // As for --timeout: the table's default makes nil a mistake in the table, not input.
      guard let seconds = try args.integer("seconds") else {
        throw UsageError(CommandTable.testSeconds.optionRule)
      }
      guard let scanSeconds = try args.integer("scan-seconds") else {
        throw UsageError(CommandTable.testScanSeconds.optionRule)
      }
      print("ringing for \(seconds) s…")
      fflush(nil)
      let reply = try client.send(.test(seconds: seconds, scanSeconds: scanSeconds), progress: printProgress)
      return report(reply)
    case .acknowledge: return try simple(.acknowledge)
    case .check: return try check(args)
    case .awake: return try simple(.awake)
    case .readerAdd:
      var key: String?
      if args.flag("key-stdin") {
        key = readLine().map { String($0.filter { !$0.isWhitespace }).lowercased() }
        guard let key, key.count == 64, key.allSatisfy(\.isHexDigit) else {
          throw UsageError(
            "--key-stdin: give the 64 hex digits another dock's 'reader add' printed on standard input")
        }
      }
      return try simple(.readerAdd(try readerName(args), key: key))
    case .readerRemove: return try simple(.readerRemove(try readerName(args)))
    case .readerList: return try simple(.readerList)
    }
  }

  private func readerName(_ args: ArgumentList) throws -> String {
    let name = args.positionals[0]
    guard RemoteTopic.isValidName(name) else {
      throw UsageError("'\(name)' is not a reader name: 1-32 of a-z 0-9 - _ (e.g. kitchen)")
    }
    return name
  }

  /// A progress line of a long request (pair, test, override), shown as it comes: it is
  /// puckctl's output on stdout, flushed so a pipe or a waiting person sees it at once.
  private func printProgress(_ line: String) {
    print(line)
    fflush(nil)
  }

  private func simple(_ command: ControlCommand) throws -> ExitCode {
    report(try client.send(command))
  }

  func alarmID(_ args: ArgumentList) throws(UsageError) -> AlarmID {
    guard let id = Int(args.positionals[0]) else {
      throw UsageError("'\(args.positionals[0])' is not an alarm ID")
    }
    return id
  }

  /// Prints a final reply's message (stdout on success, stderr on failure) and maps it to an exit code.
  func report(_ reply: ControlReply) -> ExitCode {
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

  private func status(_ args: ArgumentList) throws -> ExitCode {
    let reply = try client.send(.status)
    guard reply.ok == true, let status = reply.status else { return report(reply) }
    if args.flag("json") {
      print(String(decoding: ControlWire.encode(ControlReply(ok: true, status: status)), as: UTF8.self))
    } else {
      print(StatusText(zone: zone, now: now).render(status))
    }
    return status.protected ? .success : .failure
  }

  /// One line per part on stdout (or the report as JSON), then exit 1 if any part failed.
  private func check(_ args: ArgumentList) throws -> ExitCode {
    let reply = try client.send(.check)
    guard let report = reply.check else { return report(reply) }
    if args.flag("json") {
      var plain = ControlReply(ok: reply.ok)
      plain.check = report
      print(String(decoding: ControlWire.encode(plain), as: UTF8.self))
    } else {
      print("pre-flight check \(report.passed ? "passed" : "FAILED"):")
      for part in report.parts { print("  \(part.line)") }
    }
    return report.passed ? .success : .failure
  }

  private func pair(_ args: ArgumentList) throws -> ExitCode {
    // The table gives --timeout a default, so nil means that row lost it: say the rule, not trap.
    guard let timeout = try args.integer("timeout") else {
      throw UsageError(CommandTable.pairTimeout.optionRule)
    }
    let name = args.value("name")
    if let name, !Pairing.isAcceptableName(name) { throw UsageError(Pairing.nameRule) }
    let reply = try client.send(.pair(timeoutSeconds: timeout, name: name), progress: printProgress)
    return report(reply)
  }

  /// Forgets a puck; the last one, while an enabled alarm needs one, only after the word
  /// `unpair` is typed (or with --yes).
  private func unpair(_ args: ArgumentList) throws -> ExitCode {
    let name = args.value("name")
    if let name, !Pairing.isAcceptableName(name) { throw UsageError(Pairing.nameRule) }
    let reply = try client.send(.unpair(name: name, confirmed: args.flag("yes")))
    guard reply.ok != true, reply.failure?.kind == .refused, reply.failure?.message.contains("--yes") == true
    else { return report(reply) }
    print(reply.failure?.message ?? "")
    print("Type 'unpair' to confirm: ", terminator: "")
    fflush(nil)
    guard readLine()?.split(separator: " ").first == "unpair" else {
      PuckCtl.printError("puckctl: not confirmed; nothing changed")
      return .failure
    }
    return report(try client.send(.unpair(name: name, confirmed: true)))
  }

  /// The paired pucks: name, tag, when paired, when last seen.
  private func pucks(_ args: ArgumentList) throws -> ExitCode {
    let reply = try client.send(.pucks)
    guard reply.ok == true, let pucks = reply.pucks else { return report(reply) }
    if args.flag("json") {
      var plain = ControlReply(ok: true)
      plain.pucks = pucks
      print(String(decoding: ControlWire.encode(plain), as: UTF8.self))
      return .success
    }
    guard !pucks.isEmpty else {
      print("no puck paired — run: sudo puckctl pair")
      return .success
    }
    let text = StatusText(zone: zone, now: now)
    for puck in pucks {
      let seen = puck.lastSeen.map { "last seen \(text.local($0))" } ?? "not seen since pairing"
      print("\(puck.name)  \(puck.tag)  paired \(text.local(puck.pairedAt)), \(seen)")
    }
    return .success
  }

  private func override(_ args: ArgumentList) throws -> ExitCode {
    if args.flag("cancel") { return report(try client.send(.overrideCancel)) }
    if !args.flag("yes") {
      print("This ends every open wake-up without a scan, and is recorded in history.")
      print("Type 'override' to confirm: ", terminator: "")
      fflush(nil)
      guard readLine()?.split(separator: " ").first == "override" else {
        PuckCtl.printError("puckctl: not confirmed; nothing changed")
        return .failure
      }
    }
    // The daemon counts down (override_delay) before it closes anything; Ctrl-C stops it.
    let reply = try client.send(.override, progress: printProgress)
    return report(reply)
  }

  private func history(_ args: ArgumentList) throws -> ExitCode {
    if args.flag("csv") {
      guard !args.flag("json") else { throw UsageError("--csv and --json: choose one") }
      print(HistoryCSV.header)
      for entry in try HistoryPager(client: client).entries(since: nil, before: try args.integer("before")) {
        print(HistoryCSV.row(entry, zone: zone))
      }
      return .success
    }
    let query = HistoryQuery(
      limit: try args.integer("limit") ?? HistoryQuery.defaultLimit, before: try args.integer("before"))
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
    for entry in entries { print(text.historyLine(entry)) }
    if let older = reply.nextBefore {
      // The whole command, so the next page is one copy and paste away.
      let limit = args.value("limit") == nil ? "" : " --limit \(query.limit)"
      print("older wake-ups: puckctl history --before \(older)\(limit)")
    }
    return .success
  }
}
