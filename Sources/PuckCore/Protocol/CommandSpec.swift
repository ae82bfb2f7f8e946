// The parts of a row of `CommandTable`: bounded integers, options, operands and the row itself.

/// A whole-number argument with its allowed range and default. puckctl checks it before
/// sending and puckd checks it on receipt, with these same bounds, so a client of another
/// version (or no client at all) cannot get past what this one would refuse.
public struct BoundedInteger: Hashable, Sendable {
  /// The values accepted, both ends included.
  public let range: ClosedRange<Int>
  /// The value used when the argument is left out; nil when leaving it out means "none".
  public let defaultValue: Int?
  /// A unit the command line may append to the number (`30s`), or nil.
  public let unitSuffix: String?
  /// What puckd answers for a value outside the range.
  public let wireRule: String
  /// What puckctl prints for an option value it cannot accept.
  public let optionRule: String

  /// Whether `value` is within `range`.
  public func accepts(_ value: Int) -> Bool { range.contains(value) }

  /// The value a request carried, or the default when it carried none; a bad-request failure
  /// with `wireRule` when it is out of range.
  public func checked(_ value: Int?) throws(ControlFailure) -> Int? {
    guard let value else { return defaultValue }
    guard accepts(value) else { throw ControlFailure(.badRequest, wireRule) }
    return value
  }

  /// The value of a command-line option (`30`, or `30s` where there is a unit), or nil when
  /// it is not a number in range; the caller reports `optionRule`.
  public func parse(option text: String) -> Int? {
    var digits = Substring(text)
    if let unitSuffix, digits.hasSuffix(unitSuffix) { digits = digits.dropLast(unitSuffix.count) }
    guard let value = Int(digits), accepts(value) else { return nil }
    return value
  }
}

/// One `--option` of a command.
public struct CommandOption: Hashable, Sendable {
  /// What the option takes.
  public enum Value: Hashable, Sendable {
    /// Nothing: a switch. Switches only change how puckctl asks or prints (`--json`,
    /// `--yes`), so they are never sent.
    case flag
    /// A whole number within bounds.
    case integer(BoundedInteger)
    /// A label: one line within `Alarm.labelRule`.
    case label
    /// Days of the week: `mon,tue,...`, `weekdays`, `weekends` or `daily` (`Weekday.parseSet`).
    case days
    /// A date: `YYYY-MM-DD`, `today` or `tomorrow`; the relative words are the dock's.
    case date
    /// An alarm time, `HH:MM` or `HH:MM:SS`.
    case time
  }

  /// The name without the dashes: `timeout` for `--timeout`.
  public let name: String
  /// What it takes.
  public let value: Value

  /// `--json`: the answer as JSON, for scripts (status, alarm list, history, check, reader list).
  static let json = CommandOption(name: "json", value: .flag)
  /// The options `alarm add` and `alarm edit` share: the days, the date of a one-shot, the label,
  /// and that any stop ends the alarm.
  static let days = CommandOption(name: "days", value: .days)
  static let date = CommandOption(name: "date", value: .date)
  static let label = CommandOption(name: "label", value: .label)
  static let noPuck = CommandOption(name: "no-puck", value: .flag)
}

/// The positional argument a command takes, if any.
public enum CommandOperand: Hashable, Sendable {
  /// An alarm time, `HH:MM` or `HH:MM:SS` on a 24-hour clock (`WallTime(parsing:)`).
  case time
  /// An alarm's number, as `alarm list` shows it.
  case alarmID
  /// A tag UID in hex, such as `04:A2:3B:11:22:33:44` (`TagUID(parsing:)`).
  case tagUID
  /// A remote reader's name: 1 to 32 of `a-z 0-9 - _` (`RemoteTopic.isValidName`).
  case readerName

  /// What puckctl says is missing when the operand is left out.
  public var missing: String {
    switch self {
    case .time: return "the alarm time HH:MM"
    case .alarmID: return "the alarm ID (see puckctl alarm list)"
    case .tagUID: return "the UID to scan (e.g. 04:A2:3B:11:22:33:44)"
    case .readerName: return "the reader's name (e.g. kitchen)"
    }
  }
}

/// Everything about one control command that puckctl and puckd must agree on: the words
/// typed, the role needed, the arguments with their bounds, and the help.
public struct CommandSpec: Hashable, Sendable {
  /// The name on the wire.
  public let name: CommandName
  /// The words typed after `puckctl`: `["alarm", "add"]`.
  public let words: [String]
  /// The least privileged role allowed to send it (docs/DESIGN.md C2).
  public let role: Role
  /// The positional argument, if any.
  public let operand: CommandOperand?
  /// The options, in the order the synopsis shows them.
  public let options: [CommandOption]
  /// The command with its arguments, for the `puckctl --help` listing.
  public let synopsis: String
  /// One line on what it does, for the `puckctl --help` listing.
  public let summary: String
  /// What `puckctl WORD --help` prints; the `alarm` commands share one text.
  public let help: String

  /// The words as typed: `alarm add`.
  public var commandLine: String { words.joined(separator: " ") }

  /// The option called `name`, if the command has one.
  public func option(_ name: String) -> CommandOption? { options.first { $0.name == name } }
}
