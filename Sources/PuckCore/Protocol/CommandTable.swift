/// The name of a control command: on the wire (`"command"`), in logs and in the table.
public enum CommandName: String, CaseIterable, Hashable, Sendable {
  case status
  case pair
  case unpair
  case pucks
  case alarmAdd = "alarm.add"
  case alarmList = "alarm.list"
  case alarmRemove = "alarm.rm"
  case alarmEnable = "alarm.enable"
  case alarmDisable = "alarm.disable"
  case alarmSkip = "alarm.skip"
  case alarmEdit = "alarm.edit"
  case alarmPause = "alarm.pause"
  case alarmResume = "alarm.resume"
  case pause
  case resume
  case stop
  case scan
  case override
  case history
  case test
  case acknowledge
  case check
  case awake
  case readerAdd = "reader.add"
  case readerRemove = "reader.rm"
  case readerList = "reader.list"
}

/// The one table of control commands. puckctl parses, checks and explains its command line
/// from it; puckd's decoder takes its defaults and bounds and its role check takes its roles
/// from it. The man page is checked against it by a test.
public enum CommandTable {
  /// `pair --timeout`: seconds to wait for the tag.
  public static let pairTimeout = BoundedInteger(
    range: 1...600, defaultValue: 30, unitSuffix: "s", wireRule: "pair timeout must be 1-600 s",
    optionRule: "--timeout takes seconds, 1-600 (e.g. 30s)")
  /// `test --seconds`: how long the rehearsal rings.
  public static let testSeconds = BoundedInteger(
    range: 1...60, defaultValue: 5, unitSuffix: nil, wireRule: "test takes 1-60 seconds",
    optionRule: "--seconds takes 1-60")
  /// `test --scan-seconds`: how long the rehearsal waits for the puck (0: it does not ask).
  public static let testScanSeconds = BoundedInteger(
    range: 0...120, defaultValue: 30, unitSuffix: nil, wireRule: "test waits 0-120 seconds for the puck",
    optionRule: "--scan-seconds takes 0-120")
  /// `history --limit`: entries per page.
  public static let historyLimit = BoundedInteger(
    range: 1...HistoryQuery.maximumLimit, defaultValue: HistoryQuery.defaultLimit, unitSuffix: nil,
    wireRule: HistoryQuery.limitRule, optionRule: "--limit: \(HistoryQuery.limitRule)")
  /// `history --before`: a cursor an earlier page gave. Only its sign can be checked here;
  /// puckd refuses a cursor it did not hand out when it reads the page.
  public static let historyCursor = BoundedInteger(
    range: 0...Int.max, defaultValue: nil, unitSuffix: nil,
    wireRule: "a history cursor is a value an earlier history reply gave",
    optionRule: "--before takes the cursor a history page printed (puckctl history --before N)")

  /// Every command, in the order `puckctl --help` lists them.
  public static let all: [CommandSpec] = CommandName.allCases.map(\.spec)

  /// The command typed as `words` (`["alarm", "rm"]`), if there is one.
  public static func spec(words: [String]) -> CommandSpec? {
    all.first { $0.words == words }
  }

  /// The sub-commands of a group word such as `alarm`, in table order; empty for a plain command.
  public static func subcommands(of word: String) -> [String] {
    all.filter { $0.words.count == 2 && $0.words[0] == word }.map { $0.words[1] }
  }

  /// What `puckctl WORD --help` prints, if `word` starts a command.
  public static func help(for word: String) -> String? {
    all.first { $0.words.first == word }?.help
  }

  /// The command lines of `puckctl --help`: synopsis, then summary from the 31st column (on a
  /// line of its own when the synopsis is too long to leave room).
  public static var listing: [String] {
    all.map { spec in
      let synopsis = "  " + spec.synopsis
      let column = 30
      guard synopsis.count < column else {
        return synopsis + "\n" + String(repeating: " ", count: column) + spec.summary
      }
      return synopsis + String(repeating: " ", count: column - synopsis.count) + spec.summary
    }
  }

  static let alarmHelp = """
    usage: puckctl alarm add HH:MM[:SS] [--days mon,tue,...|weekdays|weekends|daily]
                              [--date YYYY-MM-DD|today|tomorrow] [--label TEXT] [--no-puck]
           puckctl alarm list [--json]
           puckctl alarm rm ID | enable ID | disable ID | skip ID
           puckctl alarm edit ID [--time HH:MM] [--days ...|--date ...] [--label TEXT]
                                 [--puck|--no-puck]
           puckctl alarm pause ID --until YYYY-MM-DD|today|tomorrow
           puckctl alarm resume ID
    Without --days or --date an alarm rings once, at the next HH:MM. That, 'today' and
    'tomorrow' follow the dock's clock and time zone, not this shell's. 'skip' skips only the
    next occurrence. --no-puck: a stop ends it, no scan needed. 'pause --until DATE': nothing
    rings before DATE, the first day it rings again, at most a year ahead. Edit, pause and
    resume are refused for an alarm whose wake-up is open.
    """
}

extension CommandName {
  /// This command's row of the table. A switch rather than a dictionary, so the compiler
  /// holds every name to having a row.
  public var spec: CommandSpec {
    switch self {
    case .status:
      return CommandSpec(
        name: self, words: ["status"], role: .anyone, operand: nil, options: [.json],
        synopsis: "status [--json]", summary: "is the dock protected? next alarm, wake-ups, devices",
        help: """
          usage: puckctl status [--json]
          Next alarm, open wake-ups, reader/audio/buzzer health, pairing, clock sync, and whether the
          dock is protected. Exits 1 when it is not protected, and says why.
          """)
    case .pair:
      return CommandSpec(
        name: self, words: ["pair"], role: .root, operand: nil,
        options: [
          CommandOption(name: "timeout", value: .integer(CommandTable.pairTimeout)),
          CommandOption(name: "name", value: .label),
        ],
        synopsis: "pair [--name NAME] [--timeout 30s]", summary: "pair a puck: scan it twice (root)",
        help: """
          usage: sudo puckctl pair [--name NAME] [--timeout 30s]
          Waits for a tag on the reader, then asks for the same tag again to confirm, and adds it
          to the paired pucks under NAME (default: primary for the first, then puck 2, …; at most
          8 pucks). Any paired puck ends a wake-up: pair a backup and keep it elsewhere. Refused
          while a wake-up is open. In --simulate mode the scans come from 'puckctl scan UID'.
          """)
    case .unpair:
      return CommandSpec(
        name: self, words: ["unpair"], role: .root, operand: nil,
        options: [CommandOption(name: "name", value: .label), CommandOption(name: "yes", value: .flag)],
        synopsis: "unpair [--name NAME] [--yes]", summary: "forget a paired puck (root)",
        help: """
          usage: sudo puckctl unpair [--name NAME] [--yes]
          Forgets the puck named NAME (the only one when there is one). Refused while a wake-up is
          open. Forgetting the last puck while an enabled alarm needs one leaves nothing that ends
          a wake-up: it asks for the word unpair, unless --yes is given.
          """)
    case .pucks:
      return CommandSpec(
        name: self, words: ["pucks"], role: .anyone, operand: nil,
        options: [.json],
        synopsis: "pucks [--json]", summary: "the paired pucks, and when each was last seen",
        help:
          "usage: puckctl pucks [--json]\nLists the paired pucks: name, tag (masked), when paired, when last seen."
      )
    case .alarmAdd:
      return CommandSpec(
        name: self, words: ["alarm", "add"], role: .member, operand: .time,
        options: [.days, .date, .label, .noPuck],
        synopsis: "alarm add HH:MM [...]", summary: "add an alarm (see 'puckctl alarm --help')",
        help: CommandTable.alarmHelp)
    case .alarmList:
      return CommandSpec(
        name: self, words: ["alarm", "list"], role: .anyone, operand: nil,
        options: [.json], synopsis: "alarm list [--json]",
        summary: "the alarms and when each rings next", help: CommandTable.alarmHelp)
    case .alarmRemove:
      return alarmChange(["alarm", "rm"], summary: "remove an alarm")
    case .alarmEnable:
      return alarmChange(["alarm", "enable"], summary: "let an alarm ring again")
    case .alarmDisable:
      return alarmChange(["alarm", "disable"], summary: "keep an alarm without ringing it")
    case .alarmSkip:
      return alarmChange(["alarm", "skip"], summary: "skip only the next occurrence")
    case .alarmEdit:
      return CommandSpec(
        name: self, words: ["alarm", "edit"], role: .member, operand: .alarmID,
        options: [
          CommandOption(name: "time", value: .time), .days, .date, .label,
          CommandOption(name: "puck", value: .flag), .noPuck,
        ],
        synopsis: "alarm edit ID [...]", summary: "change an alarm's time, days, date, label or puck",
        help: CommandTable.alarmHelp)
    case .alarmPause:
      return CommandSpec(
        name: self, words: ["alarm", "pause"], role: .member, operand: .alarmID,
        options: [CommandOption(name: "until", value: .date)], synopsis: "alarm pause ID --until DATE",
        summary: "no ring from this alarm before DATE", help: CommandTable.alarmHelp)
    case .alarmResume:
      return alarmChange(["alarm", "resume"], summary: "end an alarm's pause")
    case .pause:
      return CommandSpec(
        name: self, words: ["pause"], role: .member, operand: nil,
        options: [CommandOption(name: "until", value: .date)],
        synopsis: "pause --until DATE", summary: "no alarm rings before DATE (holidays)",
        help: """
          usage: puckctl pause --until YYYY-MM-DD|today|tomorrow
          Pauses the whole dock: no alarm rings on a day before DATE, the first day alarms ring
          again, at most a year ahead ('today' and 'tomorrow' are the dock's). Refused while a
          wake-up is open. Status and the alarm list show it. 'puckctl resume' ends it early.
          """)
    case .resume:
      return CommandSpec(
        name: self, words: ["resume"], role: .member, operand: nil, options: [], synopsis: "resume",
        summary: "end the whole dock's pause", help: "usage: puckctl resume\nEnds a pause of the whole dock.")
    case .check:
      return CommandSpec(
        name: self, words: ["check"], role: .member, operand: nil,
        options: [.json],
        synopsis: "check [--json]", summary: "pre-flight check: read back what the next alarm needs",
        help: """
          usage: puckctl check [--json]
          Runs the pre-flight check now, as puckd does at start and [enforcement] check_before
          (10 min) ahead of every alarm: the reader answers, the pairing file reads back and
          holds the paired tag, the audio device opens and the sound is loaded, the buzzer line
          is held, the clock is synchronised, every remote reader is online, and the alarm timer
          the kernel holds is the next alarm's. One line per part; exit status 1 if any failed.
          """)
    case .awake:
      return CommandSpec(
        name: self, words: ["awake"], role: .member, operand: nil, options: [], synopsis: "awake",
        summary: "answer the wake-up check: I am up",
        help: """
          usage: puckctl awake
          Answers the wake-up check ([enforcement] awake_check) while the dock waits for it, as
          the dock button does. Without an answer within a minute the wake-up opens again.
          """)
    case .stop:
      return CommandSpec(
        name: self, words: ["stop"], role: .member, operand: nil, options: [], synopsis: "stop",
        summary: "silence the ring; it comes back after the retry delay",
        help:
          "usage: puckctl stop\nSilences the ring (a bypass, like the dock button); it rings again after the retry delay."
      )
    case .readerAdd:
      return CommandSpec(
        name: self, words: ["reader", "add"], role: .root, operand: .readerName,
        options: [CommandOption(name: "key-stdin", value: .flag)],
        synopsis: "reader add NAME [--key-stdin]", summary: "enrol a remote reader and print its key (root)",
        help: """
          usage: sudo puckctl reader add NAME [--key-stdin]
          Enrols a reader node (a second board with a PN532, through the [mqtt] broker) under NAME
          (1-32 of a-z 0-9 - _), makes its key and prints what to install on the node. Scans it
          signs with that key can end a wake-up from then on. --key-stdin takes the key another
          dock made for the same node (64 hex digits on standard input) instead of a new one, so
          two docks share one reader node.
          """)
    case .readerRemove:
      return CommandSpec(
        name: self, words: ["reader", "rm"], role: .root, operand: .readerName, options: [],
        synopsis: "reader rm NAME", summary: "remove a remote reader and its key (root)",
        help: "usage: sudo puckctl reader rm NAME\nRemoves a remote reader. Refused while a wake-up is open.")
    case .readerList:
      return CommandSpec(
        name: self, words: ["reader", "list"], role: .anyone, operand: nil, options: [],
        synopsis: "reader list", summary: "the remote readers and their health",
        help: "usage: puckctl reader list\nLists the enrolled remote readers, each with its health.")
    case .scan:
      return CommandSpec(
        name: self, words: ["scan"], role: .member, operand: .tagUID, options: [], synopsis: "scan UID",
        summary: "simulated scan (puckd --simulate only)",
        help: "usage: puckctl scan UID\nDelivers a simulated scan (only to a daemon started with --simulate)."
      )
    case .override:
      return CommandSpec(
        name: self, words: ["override"], role: .root, operand: nil,
        options: [CommandOption(name: "yes", value: .flag), CommandOption(name: "cancel", value: .flag)],
        synopsis: "override [--yes] | --cancel",
        summary: "end every open wake-up without a scan, after a delay (root, recorded)",
        help: """
          usage: sudo puckctl override [--yes]
                 sudo puckctl override --cancel
          Closes every open wake-up WITHOUT a scan, once [enforcement] override_delay (2 min by
          default) has passed with the ring going on; it waits and counts down meanwhile.
          Ctrl-C, or --cancel from another terminal, stops it and the wake-up stays open; a scan
          of the puck meanwhile ends the wake-up as usual. Recorded in history as an override
          and shown in status until acknowledged. Asks for the word override unless --yes is given.
          """)
    case .history:
      return CommandSpec(
        name: self, words: ["history"], role: .anyone, operand: nil,
        options: [
          CommandOption(name: "json", value: .flag),
          CommandOption(name: "limit", value: .integer(CommandTable.historyLimit)),
          CommandOption(name: "before", value: .integer(CommandTable.historyCursor)),
          CommandOption(name: "csv", value: .flag),
        ],
        synopsis: "history [--json|--csv] [--limit N] [--before CURSOR]",
        summary: "past wake-ups, newest last, a page at a time",
        help: """
          usage: puckctl history [--json|--csv] [--limit N] [--before CURSOR]
          Past wake-ups, newest last, one line each: the alarm, when it first rang, how it ended
          (which puck on which reader, how long after the first ring), bypasses. The newest 20,
          or N (at most 1000). When there are older ones, the last line is the command that shows
          the page before (--before takes the cursor it names; with --json the cursor is
          "nextBefore"). --csv exports the whole history (or all before CURSOR), oldest first,
          as CSV with a header line.
          """)
    case .test:
      return CommandSpec(
        name: self, words: ["test"], role: .member, operand: nil,
        options: [
          CommandOption(name: "seconds", value: .integer(CommandTable.testSeconds)),
          CommandOption(name: "scan-seconds", value: .integer(CommandTable.testScanSeconds)),
        ],
        synopsis: "test [--seconds N] [--scan-seconds N]",
        summary: "rehearsal: ring, scan the puck, check every part",
        help: """
          usage: puckctl test [--seconds N] [--scan-seconds N]
          A rehearsal that is not a wake-up: rings for N seconds (default 5) at the starting volume
          with the buzzer pattern, then asks you to scan your puck and waits (default 30 s; 0 does
          not ask), and reports one line per part: reader, audio, buzzer, button, LED and the puck.
          Exits non-zero if any part failed. Simulated: send the scan with 'puckctl scan UID'.
          """)
    case .acknowledge:
      return CommandSpec(
        name: self, words: ["acknowledge"], role: .member, operand: nil, options: [],
        synopsis: "acknowledge", summary: "clear the state problems and missed alarms status shows",
        help: "usage: puckctl acknowledge\nClears the state problems and missed alarms that status shows.")
    }
  }

  /// `alarm rm|enable|disable|skip ID`: a member's change to one alarm.
  private func alarmChange(_ words: [String], summary: String) -> CommandSpec {
    CommandSpec(
      name: self, words: words, role: .member, operand: .alarmID, options: [],
      synopsis: words.joined(separator: " ") + " ID", summary: summary, help: CommandTable.alarmHelp)
  }
}
