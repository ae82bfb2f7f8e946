/// Who may send a command over the control socket (docs/DESIGN.md C2).
public enum Role: Int, Comparable, Sendable, Codable {
  /// Anyone who can reach the socket: read-only commands.
  case anyone = 0
  /// The web app's own user (`puck-web`), and everyone above: alarm changes, the pauses, the
  /// pre-flight check. Never what needs a person at the dock: stop, the wake-up check's answer,
  /// scan, test, acknowledge (docs/DESIGN.md C2), so a bug in the network-facing code cannot
  /// become a snooze or a forged "I am up".
  case web = 1
  /// Root or a member of the `puckalarm` group: also stop, scan, test, awake, acknowledge.
  case member = 2
  /// Root only: pair, unpair, override, readers, reload.
  case root = 3

  public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where an argument's value goes in a request: its key on the wire, or, for what puckctl
/// keeps to itself (`--json`, `calendar --tz`), a name of its own.
public enum Field: String, CodingKey, Hashable, Sendable, CaseIterable {
  case id, time, days, date, label, requiresPuck, uid, reader, key, limit, before, seconds, cancel
  case scanSeconds, until, name, yes
  // Never sent: puckctl's own.
  case json, csv, weeks, tz, after, count, shell, root, config, file
}

/// A value an argument carries.
public enum ArgumentValue: Hashable, Sendable {
  case flag(Bool)
  case integer(Int)
  case text(String)
  case time(WallTime)
  case days(Set<Weekday>)
  case date(DraftDate)
  case uid(TagUID)

  var flag: Bool? { if case .flag(let value) = self { value } else { nil } }
  var integer: Int? { if case .integer(let value) = self { value } else { nil } }
  var text: String? { if case .text(let value) = self { value } else { nil } }
  var time: WallTime? { if case .time(let value) = self { value } else { nil } }
  var days: Set<Weekday>? { if case .days(let value) = self { value } else { nil } }
  var date: DraftDate? { if case .date(let value) = self { value } else { nil } }
  var uid: TagUID? { if case .uid(let value) = self { value } else { nil } }
}

/// A command with its arguments, as puckctl parsed it or puckd decoded it; `validated()`
/// holds it to its declaration (`CommandSpec`).
public struct ControlRequest: Hashable, Sendable {
  /// Which command.
  public let name: CommandName
  /// The arguments given, by field.
  public private(set) var arguments: [Field: ArgumentValue]

  public init(_ name: CommandName, _ arguments: [Field: ArgumentValue] = [:]) {
    self.name = name
    self.arguments = arguments
  }

  /// This command's declaration.
  public var spec: CommandSpec { name.spec }

  /// The least privileged role allowed to send it, from its declaration.
  public var requiredRole: Role { spec.role }

  public var alarmID: AlarmID? { arguments[.id]?.integer }
  public var time: WallTime? { arguments[.time]?.time }
  public var label: String? { arguments[.label]?.text }
  public var requiresPuck: Bool? { arguments[.requiresPuck]?.flag }
  public var uid: TagUID? { arguments[.uid]?.uid }
  public var until: DraftDate? { arguments[.until]?.date }

  /// An integer field (`seconds`, `limit`, `count`).
  public func integer(_ field: Field) -> Int? { arguments[field]?.integer }
  /// A text field (`name`, `reader`, `tz`).
  public func text(_ field: Field) -> String? { arguments[field]?.text }
  /// Whether a switch was given (`json`, `yes`, `cancel`).
  public func flag(_ field: Field) -> Bool { arguments[field]?.flag ?? false }

  /// How an alarm repeats, from `days` or `date`; nil when neither was given.
  public var recurrence: DraftRecurrence? {
    if let days = arguments[.days]?.days { return .weekly(days) }
    return arguments[.date]?.date.map(DraftRecurrence.init)
  }

  /// `alarm add` of `draft`.
  public init(adding draft: AlarmDraft) {
    self.init(
      .alarmAdd,
      [.time: .time(draft.time), .label: .text(draft.label), .requiresPuck: .flag(draft.requiresPuck)])
    arguments.merge(Self.fields(of: draft.recurrence)) { $1 }
  }

  /// `alarm edit` of alarm `id` with `edit`.
  public init(editing id: AlarmID, _ edit: AlarmEdit) {
    self.init(.alarmEdit, [.id: .integer(id)])
    arguments[.time] = edit.time.map(ArgumentValue.time)
    arguments[.label] = edit.label.map(ArgumentValue.text)
    arguments[.requiresPuck] = edit.requiresPuck.map(ArgumentValue.flag)
    arguments.merge(edit.recurrence.map(Self.fields(of:)) ?? [:]) { $1 }
  }

  /// `days` or `date` for a recurrence; neither for the next HH:MM.
  private static func fields(of recurrence: DraftRecurrence) -> [Field: ArgumentValue] {
    switch recurrence {
    case .weekly(let days): return [.days: .days(days)]
    case .once(let date): return [.date: .date(.absolute(date))]
    case .today: return [.date: .date(.today)]
    case .tomorrow: return [.date: .date(.tomorrow)]
    case .next: return [:]
    }
  }

  /// `alarm add`: the new alarm (`validated()` filled in the label and the puck).
  public var alarmDraft: AlarmDraft? {
    guard let time else { return nil }
    return AlarmDraft(
      time: time, recurrence: recurrence ?? .next, label: label ?? "", requiresPuck: requiresPuck ?? true)
  }

  /// `alarm edit`: what changes.
  public var alarmEdit: AlarmEdit {
    AlarmEdit(time: time, recurrence: recurrence, label: label, requiresPuck: requiresPuck)
  }

  /// The request held to its declaration: what it does not declare is dropped, left-out
  /// arguments get their defaults, and every value is checked by its kind. Both ends run it:
  /// puckctl before sending, puckd on receipt.
  public func validated() throws(ControlFailure) -> ControlRequest {
    let spec = self.spec
    var checked = ControlRequest(name)
    for argument in spec.arguments {
      guard let value = arguments[argument.field] ?? argument.defaultValue else {
        if argument.required {
          throw ControlFailure(.badRequest, "\(spec.commandLine) needs \(argument.missing)")
        }
        continue
      }
      try argument.check(value, command: name)
      checked.arguments[argument.field] = value
    }
    for fields in spec.exclusive where fields.filter({ checked.arguments[$0] != nil }).count > 1 {
      let names = fields.map { field in
        spec.arguments.first { $0.field == field }?.name.map { "--" + $0 } ?? field.rawValue
      }.joined(separator: " or ")
      throw ControlFailure(.badRequest, "\(spec.commandLine) takes \(names), not both")
    }
    if spec.needsAnOption && !spec.options.contains(where: { arguments[$0.field] != nil }) {
      let names = spec.options.map { "--" + ($0.name ?? "") }.joined(separator: ", ")
      throw ControlFailure(.badRequest, "\(spec.commandLine) needs something to change: \(names)")
    }
    return checked
  }
}

extension CommandArgument {
  /// Refuses a value this argument does not accept.
  func check(_ value: ArgumentValue, command: CommandName) throws(ControlFailure) {
    switch (kind, value) {
    case (.flag, .flag), (.time, .time), (.date, .date), (.tagUID, .uid): return
    case (.integer(let bounds), .integer(let number)):
      guard bounds.accepts(number) else { throw ControlFailure(.badRequest, bounds.wireRule) }
    case (.alarmID, .integer): return
    case (.text(let rule), .text(let text)), (.standardInput(let rule), .text(let text)):
      guard rule.check(text) else { throw ControlFailure(.badRequest, rule.rule) }
    case (.days, .days(let days)):
      guard !days.isEmpty else { throw ControlFailure(.badRequest, "\(command.rawValue): days is empty") }
    default:
      throw ControlFailure(
        .badRequest, "\(command.rawValue): \(field.rawValue) is not \(kind.placeholder ?? "a switch")")
    }
  }
}

/// A new alarm as `puckctl alarm add` describes it.
public struct AlarmDraft: Hashable, Sendable {
  public var time: WallTime
  public var recurrence: DraftRecurrence
  public var label: String
  public var requiresPuck: Bool

  public init(time: WallTime, recurrence: DraftRecurrence, label: String = "", requiresPuck: Bool = true) {
    self.time = time
    self.recurrence = recurrence
    self.label = label
    self.requiresPuck = requiresPuck
  }
}

/// How a new alarm repeats, as the client said it. "Today", "tomorrow" and "the next HH:MM"
/// are the daemon's today: puckctl may run in another zone (ssh from a laptop, a container
/// with another TZ), and the alarm rings by the dock's clock.
public enum DraftRecurrence: Hashable, Sendable {
  /// Every week on these days.
  case weekly(Set<Weekday>)
  /// Once, on this date.
  case once(LocalDate)
  /// Once, today in the daemon's zone.
  case today
  /// Once, tomorrow in the daemon's zone.
  case tomorrow
  /// Once, at the next time the clock shows the alarm's time (today or tomorrow), like a phone.
  case next

  /// Once, on `date`.
  public init(_ date: DraftDate) {
    switch date {
    case .absolute(let day): self = .once(day)
    case .today: self = .today
    case .tomorrow: self = .tomorrow
    }
  }

  /// The recurrence in `zone` at `now`, for an alarm at `time`.
  public func resolved(time: WallTime, now: Instant, in zone: ZoneRules) -> Recurrence {
    let today = zone.localDateTime(at: now).date
    switch self {
    case .weekly(let days): return .weekly(days)
    case .once(let date): return .once(date)
    case .today: return .once(today)
    case .tomorrow: return .once(today.adding(days: 1))
    case .next: return .once(zone.instant(for: today, at: time) > now ? today : today.adding(days: 1))
    }
  }
}

/// A date as the client said it: a calendar date, or today or tomorrow in the daemon's zone.
/// On the wire `YYYY-MM-DD` as protocol 1 always had it, or the word.
public enum DraftDate: Hashable, Sendable, TextCodable {
  case absolute(LocalDate)
  case today
  case tomorrow

  /// The date, `today` being the daemon's.
  public func resolved(today: LocalDate) -> LocalDate {
    switch self {
    case .absolute(let date): return date
    case .today: return today
    case .tomorrow: return today.adding(days: 1)
    }
  }

  /// `YYYY-MM-DD`, `today` or `tomorrow` (either case).
  public init(codingText text: String) throws {
    switch text.lowercased() {
    case "today": self = .today
    case "tomorrow": self = .tomorrow
    default: self = .absolute(try LocalDate(parsing: text))
    }
  }

  public var codingText: String {
    switch self {
    case .absolute(let date): return date.codingText
    case .today: return "today"
    case .tomorrow: return "tomorrow"
    }
  }
}

/// What `alarm edit` changes; nil leaves a field as it is.
public struct AlarmEdit: Hashable, Sendable {
  public var time: WallTime?
  /// Weekly days, or once on a date (`today`/`tomorrow` are the daemon's); never `.next`.
  public var recurrence: DraftRecurrence?
  public var label: String?
  public var requiresPuck: Bool?

  public init(
    time: WallTime? = nil, recurrence: DraftRecurrence? = nil, label: String? = nil, requiresPuck: Bool? = nil
  ) {
    self.time = time
    self.recurrence = recurrence
    self.label = label
    self.requiresPuck = requiresPuck
  }
}
