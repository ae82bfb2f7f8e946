// The parts of a command's declaration: bounded integers, argument kinds, arguments and the
// declaration itself. Everything puckctl parses, puckd decodes and the help shows is read
// from these.

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

/// A free-text argument's rule: what it looks like in a synopsis and which texts it accepts.
public struct TextRule: Hashable, Sendable {
  /// The word the synopsis shows: `NAME`, `TEXT`.
  public let placeholder: String
  /// The rule in words, for a refusal.
  public let rule: String
  /// The words completion offers, when the text is one of a few.
  public let words: [String]
  private let accepts: @Sendable (String) -> Bool

  public init(
    _ placeholder: String, rule: String, words: [String] = [], accepts: @escaping @Sendable (String) -> Bool
  ) {
    self.placeholder = placeholder
    self.rule = rule
    self.words = words
    self.accepts = accepts
  }

  /// Whether `text` follows the rule.
  public func check(_ text: String) -> Bool { accepts(text) }

  public static func == (lhs: TextRule, rhs: TextRule) -> Bool {
    (lhs.placeholder, lhs.rule) == (rhs.placeholder, rhs.rule)
  }
  public func hash(into hasher: inout Hasher) { hasher.combine(rule) }

  /// An alarm's label: one line within `Alarm.labelRule`.
  public static let label = TextRule("TEXT", rule: Alarm.labelRule, accepts: { Alarm.isAcceptableLabel($0) })
  /// A puck's name (`Pairing.nameRule`).
  public static let puckName = TextRule(
    "NAME", rule: Pairing.nameRule, accepts: { Pairing.isAcceptableName($0) })
  /// A remote reader's name: 1 to 32 of `a-z 0-9 - _`.
  public static let readerName = TextRule(
    "NAME", rule: "a reader name is 1-32 of a-z 0-9 - _ (e.g. kitchen)",
    accepts: { RemoteTopic.isValidName($0) })
  /// A reader's key as another dock printed it: 64 hex digits.
  public static let readerKey = TextRule(
    "KEY", rule: "a key is 64 hex digits, as another dock's 'reader add' printed it",
    accepts: { $0.utf8.count == 64 && $0.allSatisfy(\.isHexDigit) })
  /// Text `puckctl` reads itself (a zone, an instant); its own command checks it.
  public static func free(_ placeholder: String) -> TextRule {
    TextRule(placeholder, rule: "", accepts: { _ in true })
  }
  /// One of a few words.
  public static func oneOf(_ words: [String]) -> TextRule {
    TextRule(
      words.joined(separator: "|"), rule: "one of " + words.joined(separator: ", "), words: words,
      accepts: { words.contains($0) })
  }
}

/// What an argument takes, and so how it is parsed, checked, sent and shown.
public enum ArgumentKind: Hashable, Sendable {
  /// Nothing: a switch, which sets its field to this value when given.
  case flag(Bool)
  /// A whole number within bounds.
  case integer(BoundedInteger)
  /// An alarm's number, as `alarm list` shows it.
  case alarmID
  /// Text within a rule.
  case text(TextRule)
  /// Days of the week: `mon,tue,...`, `weekdays`, `weekends` or `daily` (`Weekday.parseSet`).
  case days
  /// A date: `YYYY-MM-DD`, `today` or `tomorrow`; the relative words are the dock's.
  case date
  /// An alarm time, `HH:MM` or `HH:MM:SS`.
  case time
  /// A tag UID in hex (`TagUID(parsing:)`).
  case tagUID
  /// A switch that makes puckctl read the value, within a rule, from standard input.
  case standardInput(TextRule)

  /// What the synopsis shows for the value; nil for a switch.
  public var placeholder: String? {
    switch self {
    case .flag, .standardInput: return nil
    case .integer(let bounds): return bounds.unitSuffix == nil ? "N" : "DURATION"
    case .alarmID: return "ID"
    case .text(let rule): return rule.placeholder
    case .days: return "mon,tue,...|weekdays|weekends|daily"
    case .date: return "YYYY-MM-DD|today|tomorrow"
    case .time: return "HH:MM[:SS]"
    case .tagUID: return "UID"
    }
  }

  /// Whether the argument takes a value on the command line.
  public var takesValue: Bool { placeholder != nil }
}

/// One argument of a command: the operand or an `--option`.
public struct CommandArgument: Hashable, Sendable {
  /// How the command line gives it.
  public enum Form: Hashable, Sendable {
    /// The positional argument.
    case operand
    /// `--name`.
    case option(String)
  }

  public let form: Form
  public let kind: ArgumentKind
  /// Where the value goes in the request.
  public let field: Field
  /// Whether it travels to puckd; a switch that only changes how puckctl asks or prints
  /// (`--json`, `override --yes`) does not.
  public let sent: Bool
  /// Whether a request without it is refused.
  public let required: Bool
  /// The value a request left without it gets (an integer's default comes from its bounds).
  public let defaultValue: ArgumentValue?

  public init(
    _ form: Form, _ kind: ArgumentKind, field: Field, sent: Bool = true, required: Bool = false,
    default defaultValue: ArgumentValue? = nil
  ) {
    self.form = form
    self.kind = kind
    self.field = field
    self.sent = sent
    self.required = required || form == .operand
    if case .integer(let bounds) = kind, let value = bounds.defaultValue {
      self.defaultValue = .integer(value)
    } else {
      self.defaultValue = defaultValue
    }
  }

  /// `--name`, or nil for the operand.
  public var name: String? {
    guard case .option(let name) = form else { return nil }
    return name
  }

  /// What puckctl says is missing when it is left out.
  public var missing: String {
    switch (form, kind) {
    case (.operand, .time): return "the alarm time HH:MM"
    case (.operand, .alarmID): return "the alarm ID (see puckctl alarm list)"
    case (.operand, .tagUID): return "the UID to scan (e.g. 04:A2:3B:11:22:33:44)"
    case (.operand, .text(let rule)): return "the \(rule.placeholder) (\(rule.rule))"
    default: return (name.map { "--\($0) " } ?? "") + (kind.placeholder ?? "")
    }
  }

  /// The argument in a synopsis: `HH:MM[:SS]`, `--until DATE`, `[--label TEXT]`.
  var synopsis: String {
    let value = kind.placeholder
    guard let name else { return value ?? "" }
    let text = "--" + name + (value.map { " " + $0 } ?? "")
    return required ? text : "[" + text + "]"
  }

  /// An operand.
  public static func operand(_ kind: ArgumentKind, _ field: Field) -> CommandArgument {
    CommandArgument(.operand, kind, field: field)
  }

  /// `--json`: the answer as JSON, for scripts.
  public static let json = CommandArgument(.option("json"), .flag(true), field: .json, sent: false)
}

/// Where a command runs: sent to puckd, or answered by puckctl itself.
public enum CommandHome: Hashable, Sendable {
  /// A request on the control socket.
  case daemon
  /// puckctl works it out alone (`calendar`, `completion`) or from other requests (`stats`).
  case client
}

/// One command, declared once: the words typed, the role needed, the arguments with their
/// bounds, and the help. The wire codec, puckctl's parser, its help and its shell completion,
/// and puckd's role check are all read from this.
public struct CommandSpec: Hashable, Sendable {
  /// The name on the wire (and, for a client command, in the table).
  public let name: CommandName
  /// The words typed after `puckctl`: the name's parts, `alarm.add` typed `["alarm", "add"]`.
  public var words: [String] { name.rawValue.split(separator: ".").map(String.init) }
  /// The least privileged role allowed to send it (docs/DESIGN.md C2).
  public let role: Role
  /// Who answers it.
  public let home: CommandHome
  /// The operand first, if any, then the options in the order the synopsis shows them.
  public let arguments: [CommandArgument]
  /// One line on what it does, for the `puckctl --help` listing.
  public let summary: String
  /// What `puckctl WORDS --help` prints after the usage line.
  public let details: String
  /// Switches of which at most one may be given, besides those setting the same field.
  public let exclusive: [[Field]]
  /// Whether at least one option must be given (`alarm edit` changes something).
  public let needsAnOption: Bool

  public init(
    _ name: CommandName, _ role: Role, home: CommandHome = .daemon, _ arguments: [CommandArgument] = [],
    exclusive: [[Field]] = [], needsAnOption: Bool = false, summary: String, details: String = ""
  ) {
    self.name = name
    self.role = role
    self.home = home
    self.arguments = arguments
    self.exclusive = exclusive
    self.needsAnOption = needsAnOption
    self.summary = summary
    self.details = details
  }

  /// The words as typed: `alarm add`.
  public var commandLine: String { words.joined(separator: " ") }

  /// The positional argument, if any.
  public var operand: CommandArgument? { arguments.first { $0.form == .operand } }

  /// The `--options`, in synopsis order.
  public var options: [CommandArgument] { arguments.filter { $0.form != .operand } }

  /// The options' names, without the dashes.
  public var optionNames: [String] { options.compactMap(\.name) }

  /// The option called `name`, if the command has one.
  public func option(_ name: String) -> CommandArgument? { options.first { $0.name == name } }

  /// The command with its arguments: `alarm pause ID --until YYYY-MM-DD|today|tomorrow`.
  public var synopsis: String {
    ([commandLine] + arguments.map(\.synopsis)).joined(separator: " ")
  }

  /// What `puckctl WORDS --help` prints: the usage line, written from the arguments, then the
  /// details.
  public var help: String {
    let sudo = role == .root ? "sudo " : ""
    return "usage: \(sudo)puckctl \(synopsis)\n\(details)"
  }
}
