/// The name of a command: on the wire (`"command"`), in logs and in the table.
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
  case reload
  // Answered by puckctl itself; puckd refuses them as unknown.
  case stats
  case calendar
  case completion
  case setup
  case webPassword = "web.password"
}

/// The one table of commands. puckctl parses, checks, explains and completes its command line
/// from it; puckd's decoder takes its fields, defaults and bounds, and its role check its
/// roles, from it. The man page and the README are checked against it by tests.
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
  /// `stats --weeks`: how far back.
  public static let statsWeeks = BoundedInteger(
    range: 1...520, defaultValue: 12, unitSuffix: nil, wireRule: "", optionRule: "--weeks takes 1-520")
  /// `calendar --count`: how many fires.
  public static let calendarCount = BoundedInteger(
    range: 1...1000, defaultValue: 1, unitSuffix: nil, wireRule: "",
    optionRule: "--count takes a whole number from 1 to 1000")

  /// Every command, in the order `puckctl --help` lists them.
  public static let all: [CommandSpec] = CommandName.allCases.map(\.spec)

  /// The commands sent to puckd.
  public static let daemon: [CommandSpec] = all.filter { $0.home == .daemon }

  /// The command typed as `words` (`["alarm", "rm"]`), if there is one.
  public static func spec(words: [String]) -> CommandSpec? {
    all.first { $0.words == words }
  }

  /// The sub-commands of a group word such as `alarm`, in table order; empty for a plain command.
  public static func subcommands(of word: String) -> [String] {
    all.filter { $0.words.count == 2 && $0.words[0] == word }.map { $0.words[1] }
  }

  /// What `puckctl WORD --help` prints, if `word` starts a command: a group's sub-commands'
  /// usage lines, then their details.
  public static func help(for word: String) -> String? {
    let specs = all.filter { $0.words.first == word }
    guard let first = specs.first else { return nil }
    guard specs.count > 1 else { return first.help }
    let usage = specs.map { (spec: CommandSpec) in
      (spec === first ? "usage: " : "       ") + (spec.role == .root ? "sudo " : "") + "puckctl "
        + spec.synopsis
    }
    return (usage + specs.map(\.details).filter { !$0.isEmpty }).joined(separator: "\n")
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
}

extension CommandSpec {
  fileprivate static func === (lhs: CommandSpec, rhs: CommandSpec) -> Bool { lhs.name == rhs.name }
}

extension CommandArgument {
  fileprivate static let days = CommandArgument(.option("days"), .days, field: .days)
  fileprivate static let date = CommandArgument(.option("date"), .date, field: .date)
  fileprivate static let label = CommandArgument(.option("label"), .text(.label), field: .label)
  fileprivate static let noPuck = CommandArgument(.option("no-puck"), .flag(false), field: .requiresPuck)
  fileprivate static let alarmID = CommandArgument.operand(.alarmID, .id)
  fileprivate static let until = CommandArgument(.option("until"), .date, field: .until, required: true)
  fileprivate static let puckName = CommandArgument(.option("name"), .text(.puckName), field: .name)
  fileprivate static let readerName = CommandArgument.operand(.text(.readerName), .reader)
}

extension CommandName {
  /// This command's declaration. A switch rather than a dictionary, so the compiler holds
  /// every name to having one.
  public var spec: CommandSpec {
    switch self {
    case .status:
      return CommandSpec(
        self, .anyone, [.json], summary: "is the dock protected? next alarm, wake-ups, devices",
        details: """
          Next alarm, open wake-ups, reader/audio/buzzer health, pairing, clock sync, and whether the
          dock is protected. Exits 1 when it is not protected, and says why. A part the config
          names that failed is FAILED with a WARNING and what to do next under the verdict.
          """)
    case .pair:
      return CommandSpec(
        self, .root,
        [
          .puckName, CommandArgument(.option("timeout"), .integer(CommandTable.pairTimeout), field: .seconds),
        ],
        summary: "pair a puck: scan it twice (root)",
        details: """
          Waits for a tag on the reader, then asks for the same tag again to confirm, and adds it
          to the paired pucks under NAME (default: primary for the first, then puck 2, …; at most
          8 pucks). Any paired puck ends a wake-up: pair a backup and keep it elsewhere. Refused
          while a wake-up is open. In --simulate mode the scans come from 'puckctl scan UID'.
          --timeout: seconds to wait for each of the two scans (default 30s).
          """)
    case .unpair:
      return CommandSpec(
        self, .root, [.puckName, CommandArgument(.option("yes"), .flag(true), field: .yes)],
        summary: "forget a paired puck (root)",
        details: """
          Forgets the puck named NAME (the only one when there is one). Refused while a wake-up is
          open. Forgetting the last puck while an enabled alarm needs one leaves nothing that ends
          a wake-up: it asks for the word unpair, unless --yes is given.
          """)
    case .pucks:
      return CommandSpec(
        self, .anyone, [.json], summary: "the paired pucks, and when each was last seen",
        details: "Lists the paired pucks: name, tag (masked), when paired, when last seen.")
    case .alarmAdd:
      return CommandSpec(
        self, .web,
        [
          .operand(.time, .time), .days, .date, .label,
          CommandArgument(.option("no-puck"), .flag(false), field: .requiresPuck, default: .flag(true)),
        ],
        exclusive: [[.days, .date]], summary: "add an alarm (see 'puckctl alarm --help')",
        details: """
          Without --days or --date an alarm rings once, at the next HH:MM. That, 'today' and
          'tomorrow' follow the dock's clock and time zone, not this shell's. --no-puck: a stop
          ends it, no scan needed.
          """)
    case .alarmList:
      return CommandSpec(
        self, .anyone, [.json], summary: "the alarms and when each rings next",
        details: """
          A pause shows as (paused until DATE) when it is the alarm's own, which 'alarm resume ID'
          ends, and as (dock paused until DATE) when the whole dock is paused, which 'resume' ends.
          """)
    case .alarmRemove:
      return CommandSpec(
        self, .web, [.alarmID], summary: "remove an alarm",
        details: """
          'rm', 'enable', 'disable' and 'skip' are refused for an alarm whose wake-up is open. Within
          lock_before (an hour by default) of its next ring nothing may remove or delay an alarm,
          not even root; a scan of the puck then ends it early.
          """)
    case .alarmEnable:
      return CommandSpec(
        self, .web, [.alarmID], summary: "let an alarm ring again",
        details:
          "'enable' also takes back a skip. The reply says when the alarm rings next, or that it never will.")
    case .alarmDisable:
      return CommandSpec(self, .web, [.alarmID], summary: "keep an alarm without ringing it")
    case .alarmSkip:
      return CommandSpec(
        self, .web, [.alarmID], summary: "skip only the next occurrence",
        details: "'skip' skips only the next occurrence.")
    case .alarmEdit:
      return CommandSpec(
        self, .web,
        [
          .alarmID, CommandArgument(.option("time"), .time, field: .time), .days, .date, .label,
          CommandArgument(.option("puck"), .flag(true), field: .requiresPuck), .noPuck,
        ],
        exclusive: [[.days, .date]], needsAnOption: true,
        summary: "change an alarm's time, days, date, label or puck",
        details: "'edit' changes what it is given and keeps the rest.")
    case .alarmPause:
      return CommandSpec(
        self, .web, [.alarmID, .until], summary: "no ring from this alarm before DATE",
        details: """
          'pause --until DATE': nothing rings before DATE, the first day it rings again, at most a
          year ahead. Edit, pause and resume are refused for an alarm whose wake-up is open.
          """)
    case .alarmResume:
      return CommandSpec(
        self, .web, [.alarmID], summary: "end an alarm's pause",
        details: "'resume' ends the alarm's own pause (not the whole dock's: that is 'puckctl resume').")
    case .pause:
      return CommandSpec(
        self, .web, [.until], summary: "no alarm rings before DATE (holidays)",
        details: """
          Pauses the whole dock: no alarm rings on a day before DATE, the first day alarms ring
          again, at most a year ahead ('today' and 'tomorrow' are the dock's). Refused while a
          wake-up is open. Status and the alarm list show it. 'puckctl resume' ends it early.
          """)
    case .resume:
      return CommandSpec(
        self, .web, summary: "end the whole dock's pause",
        details: "Ends a pause of the whole dock (an alarm's own pause: 'puckctl alarm resume ID').")
    case .stop:
      return CommandSpec(
        self, .member, summary: "silence the ring; it comes back after the retry delay",
        details: """
          Silences the ring (a bypass); it rings again after the retry delay, or sooner: a stop
          from here counts only once the ring has been heard for stop_after (20 s by default;
          refused before, with how long is left) and buys at most half as long as the ring was
          heard, so no loop of stops keeps a wake-up quiet. The dock button stops it at once.
          Exits 3 when nothing is ringing.
          """)
    case .scan:
      return CommandSpec(
        self, .member, [.operand(.tagUID, .uid)], summary: "simulated scan (puckd --simulate only)",
        details: """
          Delivers a simulated scan (only to a daemon started with --simulate). UID is 4, 7 or 10
          bytes in hex, separated by colons, dashes or spaces, or not at all: 04:A2:3B:11:22:33:44,
          04-A2-3B-11-22-33-44 and 04A23B11223344 are the same tag.
          """)
    case .override:
      return CommandSpec(
        self, .root,
        [
          CommandArgument(.option("yes"), .flag(true), field: .yes, sent: false),
          CommandArgument(.option("cancel"), .flag(true), field: .cancel),
        ],
        summary: "end every open wake-up without a scan, after a delay (root, recorded)",
        details: """
          Closes every open wake-up WITHOUT a scan, once [enforcement] override_delay (2 min by
          default) has passed with the ring going on; it waits and counts down meanwhile.
          Ctrl-C, or --cancel from another terminal, stops it and the wake-up stays open; a scan
          of the puck meanwhile ends the wake-up as usual. Recorded in history as an override
          and shown in status until acknowledged. Asks for the word override unless --yes is given.
          Exits 3 when no wake-up is open (or, with --cancel, no override counts down).
          """)
    case .history:
      return CommandSpec(
        self, .anyone,
        [
          .json, CommandArgument(.option("csv"), .flag(true), field: .csv, sent: false),
          CommandArgument(.option("limit"), .integer(CommandTable.historyLimit), field: .limit),
          CommandArgument(.option("before"), .integer(CommandTable.historyCursor), field: .before),
        ],
        exclusive: [[.json, .csv]], summary: "past wake-ups, newest last, a page at a time",
        details: """
          Past wake-ups, newest last, one line each: the alarm, when it first rang, how it ended
          (which puck on which reader, how long after the first ring), bypasses. The newest 20,
          or N (at most 1000). When there are older ones, the last line is the command that shows
          the page before (--before takes the cursor it names; with --json the cursor is
          "nextBefore"). --csv exports the whole history (or all before CURSOR), oldest first,
          as CSV with a header line.
          """)
    case .test:
      return CommandSpec(
        self, .member,
        [
          CommandArgument(.option("seconds"), .integer(CommandTable.testSeconds), field: .seconds),
          CommandArgument(
            .option("scan-seconds"), .integer(CommandTable.testScanSeconds), field: .scanSeconds),
        ],
        summary: "rehearsal: ring, scan the puck, check every part",
        details: """
          A rehearsal that is not a wake-up: rings for N seconds (default 5) at the starting volume
          with the buzzer pattern, then asks you to scan your puck and waits (default 30 s; 0 does
          not ask), and reports one line per part: reader, audio, buzzer, button, LED and the puck.
          Exits non-zero if any part failed. Simulated: send the scan with 'puckctl scan UID'.
          Refused while a wake-up is open: the puck's scan belongs to the wake-up.
          """)
    case .acknowledge:
      return CommandSpec(
        self, .member, summary: "clear the state problems and missed alarms status shows",
        details: "Clears the state problems and missed alarms that status shows.")
    case .check:
      return CommandSpec(
        self, .web, [.json], summary: "pre-flight check: read back what the next alarm needs",
        details: """
          Runs the pre-flight check now, as puckd does at start and [enforcement] check_before
          (10 min) ahead of every alarm: the reader answers, the pairing file reads back and
          holds the paired tag, the audio device opens and the sound is loaded, the buzzer line
          (and the button and LED lines the config names) is held, the clock is synchronised,
          every remote reader is online, and the alarm timer the kernel holds is the next
          alarm's. One line per part, and under a FAILED part what to do next. Exits 1 when a
          part the alarm needs failed, the clock included: an unsynchronised clock alone makes it
          1. A buzzer, button or LED the config names that cannot be opened is FAILED too, as a
          WARNING: the alarm rings without it, so it alone leaves the exit status 0. To tell the
          parts apart, read --json: each of check.parts has its name (reader, pairing, audio,
          sound, buzzer, button, led, clock, timer, remote NAME), ok, and for a failed part next
          and, when it is only a warning, severity "warning".
          """)
    case .awake:
      return CommandSpec(
        self, .member, summary: "answer the wake-up check: I am up",
        details: """
          Answers the wake-up check ([enforcement] awake_check) while the dock waits for it, as
          the dock button does. Without an answer within a minute the wake-up opens again.
          """)
    case .readerAdd:
      return CommandSpec(
        self, .root,
        [.readerName, CommandArgument(.option("key-stdin"), .standardInput(.readerKey), field: .key)],
        summary: "enrol a remote reader and print its key (root)",
        details: """
          Enrols a reader node (a second board with a PN532, through the [mqtt] broker) under NAME
          (1-32 of a-z 0-9 - _), makes its key and prints what to install on the node. Scans it
          signs with that key can end a wake-up from then on. --key-stdin takes the key another
          dock made for the same node (64 hex digits on standard input) instead of a new one, so
          two docks share one reader node. Refused while a wake-up is open.
          """)
    case .readerRemove:
      return CommandSpec(
        self, .root, [.readerName], summary: "remove a remote reader and its key (root)",
        details: "Removes a remote reader. Refused while a wake-up is open.")
    case .readerList:
      return CommandSpec(
        self, .anyone, summary: "the remote readers and their health",
        details: "Lists the enrolled remote readers, each with its health.")
    case .reload:
      return CommandSpec(
        self, .root, summary: "read puckd.conf again and apply it, as SIGHUP does (root)",
        details: """
          Reads the config file again and applies what changed (devices, reader, zone, schedule),
          as 'systemctl reload puckd' (SIGHUP) does, and answers whether it was taken: a config
          with a mistake is refused with its file:line and why, and puckd keeps its previous
          settings. Exits 1 then.
          """)
    case .stats:
      return CommandSpec(
        self, .anyone, home: .client,
        [CommandArgument(.option("weeks"), .integer(CommandTable.statsWeeks), field: .weeks), .json],
        summary: "streak, time to get up per weekday, bypasses per week",
        details: """
          From the history of the last N weeks (default 12, 1-520): the streak of wake-ups ended by a
          scan of the puck (an override or a missed alarm ends it), the median time from the first
          ring to the scan per weekday, and wake-ups, bypasses, overrides and missed alarms per week.
          --json prints the figures as one JSON object, nothing else.
          """)
    case .calendar:
      return CommandSpec(
        self, .anyone, home: .client,
        [
          .operand(.time, .time), .days, .date,
          CommandArgument(.option("tz"), .text(.free("ZONE")), field: .tz),
          CommandArgument(.option("after"), .text(.free("ISO8601")), field: .after),
          CommandArgument(.option("count"), .integer(CommandTable.calendarCount), field: .count), .json,
        ],
        exclusive: [[.days, .date]], summary: "when an alarm would fire (offline, no daemon needed)",
        details: """
          Prints when an alarm at HH:MM would fire: local time, weekday and UTC, one per line.
          Daylight saving follows RFC 5545: a time inside a spring-forward gap fires after the gap
          (02:30 in a 02:00→03:00 gap fires at 03:30), a time that occurs twice fires once, the first time.

            --days      repeating days (default: daily)
            --date      one day only: YYYY-MM-DD, today or tomorrow
            --tz        IANA zone such as Europe/Bucharest (default: the system zone)
            --after     start after this instant: 2026-03-29T00:00:00+02:00, or a local
                        2026-03-29T00:00 / 2026-03-29 in --tz (default: now)
            --count     how many fires to print, 1-1000 (default: 1)
            --json      print a JSON array of {"local": ..., "utc": ...} objects, nothing else
          """)
    case .completion:
      return CommandSpec(
        self, .anyone, home: .client,
        [.operand(.text(.oneOf(["bash", "zsh", "fish"])), .shell)],
        summary: "print the shell's completion script",
        details: """
          Prints the shell's completion script for puckctl. Debian's package installs them; by hand:
            puckctl completion bash > ~/.local/share/bash-completion/completions/puckctl
          """)
    case .setup:
      return CommandSpec(
        self, .root, home: .client,
        [
          CommandArgument(.option("config"), .text(.free("PATH")), field: .config),
          CommandArgument(.option("root"), .text(.free("DIR")), field: .root),
          CommandArgument(.option("yes"), .flag(true), field: .yes), .json,
        ],
        summary: "bring-up assistant: board, reader, config, check (root)",
        details: """
          Takes a wired board to a working config, one step at a time:
            board   the model, its reader UART (serial0; ttyAMA0 on a Pi 5), and what config.txt
                    and cmdline.txt still lack, with the raspi-config command (never changed here)
            reader  the candidates that make sense on this board, probed one at a time through
                    libnfc (the GPIO UART, /dev/i2c-1, /dev/spidev0.0, an ACR122U), never by
                    scanning every port; then asks for a tag and shows it masked
            config  writes [reader] device into PATH (default /etc/puckalarm/puckd.conf), every
                    other line kept, the old file kept beside it, checked by puckd's own parser
            check   reloads puckd, runs the pre-flight check, and offers pairing if no puck is
          On a working dock it confirms each part and changes nothing. --yes answers yes to each
          question (no tag is asked for); --json prints the findings as one JSON object. --root
          reads the board's files under DIR (a card mounted elsewhere). Exits 0 when the check
          passes.
          """)
    case .webPassword:
      return CommandSpec(
        self, .root, home: .client,
        [CommandArgument(.option("file"), .text(.free("PATH")), field: .file)],
        summary: "set the web app's password (root)",
        details: """
          Asks for the web app's password twice, without echo (from standard input, one line,
          when that is not a terminal), and stores its libcrypt yescrypt hash, never the password,
          in /etc/puckalarm/web-password, root:puckalarm mode 0640, written atomically: puck-web
          reads it at each login, so no restart is needed, and every session of the old password
          ends. At least 8 characters. --file writes PATH instead (a development dock; no root
          needed for a file of your own).
          """)
    }
  }
}
