import PuckCore
import Testing

/// The command table: every command travels over the wire as itself, its bounds hold at both
/// ends (puckctl's option parsing and puckd's decoder), and its roles are the ones C2 names.
@Suite struct CommandTableTests {
  /// One command of each name, as typed, with arguments that are not the defaults where it has
  /// any. A switch, so a new name without a sample does not compile.
  private static func sample(_ name: CommandName) throws -> ControlRequest {
    let words: [String]
    switch name {
    case .status: words = ["status"]
    case .pair: words = ["pair", "--timeout", "45", "--name", "backup in the car"]
    case .unpair: words = ["unpair", "--name", "primary", "--yes"]
    case .pucks: words = ["pucks"]
    case .alarmAdd: words = ["alarm", "add", "06:30", "--days", "mon,fri", "--label", "work", "--no-puck"]
    case .alarmList: words = ["alarm", "list"]
    case .alarmRemove: words = ["alarm", "rm", "7"]
    case .alarmEnable: words = ["alarm", "enable", "8"]
    case .alarmDisable: words = ["alarm", "disable", "9"]
    case .alarmSkip: words = ["alarm", "skip", "10"]
    case .alarmEdit:
      words = ["alarm", "edit", "11", "--time", "07:15", "--date", "tomorrow", "--label", "gym", "--no-puck"]
    case .alarmPause: words = ["alarm", "pause", "12", "--until", "2026-12-27"]
    case .alarmResume: words = ["alarm", "resume", "13"]
    case .pause: words = ["pause", "--until", "tomorrow"]
    case .resume: words = ["resume"]
    case .stop: words = ["stop"]
    case .scan: words = ["scan", "04:A2:3B:11:22:33:44"]
    case .override: words = ["override", "--cancel"]
    case .history: words = ["history", "--limit", "50", "--before", "4096"]
    case .test: words = ["test", "--seconds", "12"]
    case .acknowledge: words = ["acknowledge"]
    case .check: words = ["check"]
    case .awake: words = ["awake"]
    case .readerAdd: words = ["reader", "add", "kitchen"]
    case .readerRemove: words = ["reader", "rm", "hall-2"]
    case .readerList: words = ["reader", "list"]
    case .reload: words = ["reload"]
    case .stats: words = ["stats", "--weeks", "3"]
    case .calendar: words = ["calendar", "06:30", "--count", "3"]
    case .completion: words = ["completion", "fish"]
    case .setup: words = ["setup", "--root", "/mnt/card", "--config", "/tmp/puckd.conf", "--yes", "--json"]
    case .webPassword: words = ["web", "password", "--file", "/tmp/web-password"]
    }
    return try ControlRequest(commandLine: words)
  }

  private func decode(_ text: String) throws(ControlFailure) -> ControlRequest {
    try ControlWire.decode(Array(text.utf8))
  }

  @Test(arguments: CommandTable.daemon.map(\.name))
  func everyCommandRoundTripsThroughTheWire(_ name: CommandName) throws {
    let command = try Self.sample(name)
    #expect(command.name == name)
    let line = ControlWire.encode(command)
    #expect(String(decoding: line, as: UTF8.self).contains(#""command":"\#(name.rawValue)""#))
    #expect(try ControlWire.decode(line) == command)
  }

  @Test func everyNameHasOneRowAndEveryRowIsFoundByItsWords() {
    #expect(CommandTable.all.map(\.name) == CommandName.allCases)
    #expect(Set(CommandTable.all.map(\.words)).count == CommandTable.all.count, "no two rows typed alike")
    for spec in CommandTable.all {
      #expect(CommandTable.spec(words: spec.words) == spec)
      #expect(CommandTable.help(for: spec.words[0])?.contains("usage: ") == true, "\(spec.commandLine)")
      #expect(CommandTable.listing.contains { $0.hasPrefix("  \(spec.synopsis)") }, "\(spec.commandLine)")
    }
    #expect(
      CommandTable.subcommands(of: "alarm") == [
        "add", "list", "rm", "enable", "disable", "skip", "edit", "pause", "resume",
      ])
    #expect(CommandTable.subcommands(of: "status").isEmpty)
  }

  @Test func rolesAreTheOnesTheDesignNames() throws {
    let roles = Dictionary(uniqueKeysWithValues: CommandTable.all.map { ($0.name, $0.role) })
    let anyone: Set<CommandName> = [.status, .alarmList, .history, .readerList, .pucks]
    let root: Set<CommandName> = [.pair, .unpair, .override, .readerAdd, .readerRemove, .reload]
    // What needs a person at the dock: never the web app's user (docs/DESIGN.md C2).
    let member: Set<CommandName> = [.stop, .scan, .test, .acknowledge, .awake]
    for name in CommandTable.daemon.map(\.name) {
      let expected: Role =
        anyone.contains(name) ? .anyone : root.contains(name) ? .root : member.contains(name) ? .member : .web
      #expect(roles[name] == expected, "\(name.rawValue)")
      // The daemon's check reads the same row.
      #expect(try Self.sample(name).requiredRole == expected, "\(name.rawValue)")
    }
  }

  /// A bounded argument: the command it belongs to, its field on the wire and its option.
  struct Bound: Sendable, CustomTestStringConvertible {
    let bounds: BoundedInteger
    let command: CommandName
    let field: String
    let option: String
    var testDescription: String { "\(command.rawValue) --\(option)" }
  }

  static let bounds = [
    Bound(bounds: CommandTable.pairTimeout, command: .pair, field: "seconds", option: "timeout"),
    Bound(bounds: CommandTable.testSeconds, command: .test, field: "seconds", option: "seconds"),
    Bound(bounds: CommandTable.historyLimit, command: .history, field: "limit", option: "limit"),
    Bound(bounds: CommandTable.historyCursor, command: .history, field: "before", option: "before"),
  ]

  @Test(arguments: bounds)
  func theTableLinksTheOptionToItsBounds(_ bound: Bound) {
    #expect(bound.command.spec.option(bound.option)?.kind == .integer(bound.bounds))
  }

  @Test(arguments: bounds)
  func eachBoundHoldsOnTheWire(_ bound: Bound) throws {
    func request(_ value: Int) -> String {
      #"{"v":1,"command":"\#(bound.command.rawValue)","\#(bound.field)":\#(value)}"#
    }
    let range = bound.bounds.range
    for inside in [range.lowerBound, range.upperBound] {
      #expect(throws: Never.self, "\(inside)") { try decode(request(inside)) }
    }
    var outside = [range.lowerBound - 1]
    if range.upperBound < Int.max { outside.append(range.upperBound + 1) }
    for value in outside {
      #expect(throws: ControlFailure(.badRequest, bound.bounds.wireRule), "\(value)") {
        try decode(request(value))
      }
    }
  }

  @Test(arguments: bounds)
  func eachBoundHoldsOnTheCommandLine(_ bound: Bound) {
    let range = bound.bounds.range
    #expect(bound.bounds.parse(option: "\(range.lowerBound)") == range.lowerBound)
    #expect(bound.bounds.parse(option: "\(range.upperBound)") == range.upperBound)
    #expect(bound.bounds.parse(option: "\(range.lowerBound - 1)") == nil)
    if range.upperBound < Int.max {
      #expect(bound.bounds.parse(option: "\(range.upperBound + 1)") == nil)
    }
    #expect(bound.bounds.parse(option: "soon") == nil)
    #expect(bound.bounds.optionRule.hasPrefix("--\(bound.option)"))
  }

  @Test func leftOutArgumentsGetTheTableDefaults() throws {
    #expect(try decode(#"{"v":1,"command":"pair"}"#) == ControlRequest(.pair, [.seconds: .integer(30)]))
    #expect(
      try decode(#"{"v":1,"command":"test"}"#)
        == ControlRequest(.test, [.seconds: .integer(5), .scanSeconds: .integer(30)]))
    #expect(try decode(#"{"v":1,"command":"history"}"#) == ControlRequest(.history, [.limit: .integer(20)]))
    #expect(CommandTable.pairTimeout.defaultValue == 30)
    #expect(CommandTable.testSeconds.defaultValue == 5)
    #expect(CommandTable.historyLimit.defaultValue == HistoryQuery.defaultLimit)
    #expect(CommandTable.historyCursor.defaultValue == nil)
  }

  @Test func theTimeoutTakesSeconds() {
    #expect(CommandTable.pairTimeout.parse(option: "30s") == 30)
    #expect(CommandTable.testSeconds.parse(option: "30s") == nil, "only --timeout has a unit")
  }

  @Test func alarmAddDescribesItsArguments() {
    let add = CommandName.alarmAdd.spec
    #expect(add.operand?.kind == .time)
    #expect(add.option("days")?.kind == .days)
    #expect(add.option("date")?.kind == .date)
    #expect(add.option("label")?.kind == .text(.label))
    #expect(add.option("no-puck")?.kind == .flag(false))
    #expect(CommandName.scan.spec.operand?.kind == .tagUID)
    #expect(CommandName.alarmRemove.spec.operand?.kind == .alarmID)
  }

  @Test func anUnknownNameIsRefused() {
    #expect(throws: ControlFailure(.badRequest, "unknown command 'alarm.snooze'")) {
      try decode(#"{"v":1,"command":"alarm.snooze"}"#)
    }
  }

  @Test func aFieldThatDoesNotParseIsNamedWithTheReason() {
    #expect(
      throws: ControlFailure(
        .badRequest, "alarm.add: time: '25:99' is not a time: use HH:MM or HH:MM:SS (24-hour)")
    ) {
      try decode(#"{"v":1,"command":"alarm.add","time":"25:99"}"#)
    }
    #expect(throws: ControlFailure(.badRequest, "alarm.skip: id must be ID (another type)")) {
      try decode(#"{"v":1,"command":"alarm.skip","id":"three"}"#)
    }
    #expect(throws: ControlFailure(.badRequest, "alarm skip needs the alarm ID (see puckctl alarm list)")) {
      try decode(#"{"v":1,"command":"alarm.skip"}"#)
    }
  }

  /// The usage line every `--help` starts with is written from the arguments, so help and
  /// behaviour cannot drift apart (the old `alarm edit --help` said `--time HH:MM`).
  @Test(arguments: CommandTable.all.map(\.name))
  func usageLinesNameEveryArgumentWithWhatItTakes(_ name: CommandName) {
    let help = name.spec.help
    for argument in name.spec.arguments {
      let value = argument.kind.placeholder.map { " " + $0 } ?? ""
      let shown = argument.name.map { "--" + $0 + value } ?? String(value.dropFirst())
      #expect(help.contains(shown), "\(name.rawValue) --help shows \(shown)")
    }
    #expect(CommandName.alarmEdit.spec.help.contains("[--time HH:MM[:SS]]"))
  }

  @Test(arguments: ["04:A2:3B:11:22:33:44", "04-A2-3B-11-22-33-44", "04 A2 3B 11 22 33 44", "04a23b11223344"])
  func everyUIDFormTheHelpNamesIsAccepted(_ uid: String) throws {
    #expect(CommandName.scan.spec.help.contains("separated by colons, dashes or spaces, or not at all"))
    #expect(try ControlRequest(commandLine: ["scan", uid]).uid == TagUID(parsing: "04:A2:3B:11:22:33:44"))
  }

  @Test func theCommandLineIsCheckedByTheDeclaration() {
    #expect(throws: ControlFailure(.badRequest, "--puck and --no-puck: choose one")) {
      try ControlRequest(commandLine: ["alarm", "edit", "1", "--puck", "--no-puck"])
    }
    #expect(throws: ControlFailure(.badRequest, "alarm add takes --days or --date, not both")) {
      try ControlRequest(commandLine: ["alarm", "add", "06:30", "--days", "mon", "--date", "today"])
    }
    #expect(throws: ControlFailure(.badRequest, "--weeks takes 1-520")) {
      try ControlRequest(commandLine: ["stats", "--weeks", "0"])
    }
    #expect(throws: ControlFailure.self) { try ControlRequest(commandLine: ["alarm", "edit", "1"]) }
    #expect(throws: ControlFailure(.badRequest, "unknown command 'stats'"), "puckctl answers stats itself") {
      try decode(#"{"v":1,"command":"stats"}"#)
    }
  }
}
