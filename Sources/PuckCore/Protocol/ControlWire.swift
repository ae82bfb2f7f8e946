import FoundationEssentials

/// The control socket's wire format: one JSON object per line, each carrying the protocol
/// version `v`. A request is answered by zero or more progress lines and one final reply.
public enum ControlWire {
  /// The protocol version this build speaks.
  public static let version = 1
  /// Longest request line accepted; a longer one is answered with an error and the connection closed.
  public static let maxRequestBytes = 64 * 1024

  /// The request as it travels: a flat object, fields by command.
  struct Request: Codable {
    var v: Int
    var command: String
    var id: Int?
    var time: WallTime?
    var days: [Weekday]?
    var date: WireDate?
    var label: String?
    var requiresPuck: Bool?
    var uid: String?
    /// `reader.add`, `reader.rm`: the reader's name.
    var reader: String?
    /// `reader.add`: the key another dock made for the node, to share it.
    var key: String?
    var limit: Int?
    /// `history`: a cursor from an earlier reply's `nextBefore`.
    var before: Int?
    var seconds: Int?
    /// `override`: stop the override counting down instead of starting one.
    var cancel: Bool?
    /// `test`: how long to wait for the puck after the ring.
    var scanSeconds: Int?
    /// `alarm.pause`, `pause`: the first day alarms ring again.
    var until: WireDate?
    /// `pair`, `unpair`: a puck's name.
    var name: String?
    /// `unpair`: the last puck may go although an enabled alarm needs one.
    var yes: Bool?
  }

  /// `date` of `alarm.add`: `YYYY-MM-DD` as protocol 1 always had it, or `today`/`tomorrow`,
  /// which the daemon resolves in its own zone.
  enum WireDate: TextCodable, Hashable {
    case absolute(LocalDate)
    case today
    case tomorrow

    init(_ date: DraftDate) {
      switch date {
      case .absolute(let day): self = .absolute(day)
      case .today: self = .today
      case .tomorrow: self = .tomorrow
      }
    }

    var draft: DraftDate {
      switch self {
      case .absolute(let day): return .absolute(day)
      case .today: return .today
      case .tomorrow: return .tomorrow
      }
    }

    init(codingText text: String) throws {
      switch text {
      case "today": self = .today
      case "tomorrow": self = .tomorrow
      default: self = .absolute(try LocalDate(parsing: text))
      }
    }

    var codingText: String {
      switch self {
      case .absolute(let date): return date.codingText
      case .today: return "today"
      case .tomorrow: return "tomorrow"
      }
    }
  }

  /// Encodes a command as one line (without the newline).
  public static func encode(_ command: ControlCommand) -> [UInt8] {
    var request = Request(v: version, command: command.name)
    switch command {
    case .status, .alarmList, .stop, .override, .acknowledge, .readerList, .check, .awake, .pucks: break
    case .unpair(let name, let confirmed):
      request.name = name
      request.yes = confirmed ? true : nil
    case .readerAdd(let name, let key):
      request.reader = name
      request.key = key
    case .readerRemove(let name): request.reader = name
    case .overrideCancel: request.cancel = true
    case .pair(let timeout, let name):
      request.seconds = timeout
      request.name = name
    case .alarmAdd(let draft):
      request.time = draft.time
      switch draft.recurrence {
      case .weekly(let days): request.days = days.sorted()
      case .once(let date): request.date = .absolute(date)
      case .today: request.date = .today
      case .tomorrow: request.date = .tomorrow
      case .next: break  // No days and no date: the next HH:MM.
      }
      request.label = draft.label
      request.requiresPuck = draft.requiresPuck
    case .alarmRemove(let id), .alarmSetEnabled(let id, _), .alarmSkip(let id): request.id = id
    case .alarmEdit(let id, let change):
      request.id = id
      request.time = change.time
      switch change.recurrence {
      case .weekly(let days)?: request.days = days.sorted()
      case .once(let date)?: request.date = .absolute(date)
      case .today?: request.date = .today
      case .tomorrow?: request.date = .tomorrow
      case .next?, nil: break
      }
      request.label = change.label
      request.requiresPuck = change.requiresPuck
    case .alarmPause(let id, let until):
      request.id = id
      request.until = until.map(WireDate.init)
    case .pause(let until): request.until = until.map(WireDate.init)
    case .scan(let uid): request.uid = uid.description
    case .history(let query):
      request.limit = query.limit
      request.before = query.before
    case .test(let seconds, let scanSeconds):
      request.seconds = seconds
      request.scanSeconds = scanSeconds
    }
    return encodeLine(request)
  }

  /// Decodes and validates one request line.
  public static func decode(_ line: some Collection<UInt8>) throws(ControlFailure) -> ControlCommand {
    let request: Request
    do {
      request = try JSONDecoder().decode(Request.self, from: Data(line))
    } catch {
      throw ControlFailure(
        .badRequest, "not a valid request (one JSON object per line, with \"v\" and \"command\")")
    }
    guard request.v == version else {
      throw ControlFailure(
        .badRequest, "protocol version \(request.v) is not supported (this puckd speaks \(version))")
    }
    func id() throws(ControlFailure) -> AlarmID {
      guard let id = request.id else {
        throw ControlFailure(.badRequest, "\(request.command) needs an alarm id")
      }
      return id
    }
    func readerName() throws(ControlFailure) -> String {
      guard let name = request.reader, RemoteTopic.isValidName(name) else {
        throw ControlFailure(.badRequest, "\(request.command) needs a reader name: 1-32 of a-z 0-9 - _")
      }
      return name
    }
    func puckName() throws(ControlFailure) -> String? {
      guard let name = request.name else { return nil }
      guard Pairing.isAcceptableName(name) else { throw ControlFailure(.badRequest, Pairing.nameRule) }
      return name
    }
    guard let name = CommandName(rawValue: request.command) else {
      throw ControlFailure(.badRequest, "unknown command '\(request.command.prefix(40))'")
    }
    // Defaults and bounds come from the command table, the same values puckctl checks.
    switch name {
    case .status: return .status
    case .pair:
      return .pair(
        timeoutSeconds: try integer(request.seconds, CommandTable.pairTimeout), name: try puckName())
    case .unpair: return .unpair(name: try puckName(), confirmed: request.yes == true)
    case .pucks: return .pucks
    case .alarmAdd:
      guard let time = request.time else { throw ControlFailure(.badRequest, "alarm.add needs a time") }
      let recurrence: DraftRecurrence
      switch (request.days, request.date) {
      case (let days?, nil) where !days.isEmpty: recurrence = .weekly(Set(days))
      case (nil, .absolute(let date)?): recurrence = .once(date)
      case (nil, .today?): recurrence = .today
      case (nil, .tomorrow?): recurrence = .tomorrow
      case (nil, nil): recurrence = .next
      default: throw ControlFailure(.badRequest, "alarm.add takes non-empty days or a date, not both")
      }
      let label = request.label ?? ""
      guard Alarm.isAcceptableLabel(label) else { throw ControlFailure(.badRequest, Alarm.labelRule) }
      return .alarmAdd(
        AlarmDraft(
          time: time, recurrence: recurrence, label: label, requiresPuck: request.requiresPuck ?? true))
    case .alarmList: return .alarmList
    case .alarmRemove: return .alarmRemove(try id())
    case .alarmEnable: return .alarmSetEnabled(try id(), true)
    case .alarmDisable: return .alarmSetEnabled(try id(), false)
    case .alarmSkip: return .alarmSkip(try id())
    case .alarmEdit:
      var change = AlarmEdit(time: request.time, label: request.label, requiresPuck: request.requiresPuck)
      switch (request.days, request.date) {
      case (let days?, nil) where !days.isEmpty: change.recurrence = .weekly(Set(days))
      case (nil, .absolute(let date)?): change.recurrence = .once(date)
      case (nil, .today?): change.recurrence = .today
      case (nil, .tomorrow?): change.recurrence = .tomorrow
      case (nil, nil): break
      default: throw ControlFailure(.badRequest, "alarm.edit takes non-empty days or a date, not both")
      }
      if let label = change.label, !Alarm.isAcceptableLabel(label) {
        throw ControlFailure(.badRequest, Alarm.labelRule)
      }
      guard !change.isEmpty else {
        throw ControlFailure(
          .badRequest, "alarm.edit needs something to change: a time, days or a date, a label or the puck")
      }
      return .alarmEdit(try id(), change)
    case .alarmPause:
      guard let until = request.until else {
        throw ControlFailure(.badRequest, "alarm.pause needs until: a date")
      }
      return .alarmPause(try id(), until: until.draft)
    case .alarmResume: return .alarmPause(try id(), until: nil)
    case .pause:
      guard let until = request.until else { throw ControlFailure(.badRequest, "pause needs until: a date") }
      return .pause(until: until.draft)
    case .resume: return .pause(until: nil)
    case .stop: return .stop
    case .scan:
      do {
        return .scan(try TagUID(parsing: request.uid ?? ""))
      } catch {
        throw ControlFailure(.badRequest, error.description)
      }
    case .override: return request.cancel == true ? .overrideCancel : .override
    case .history:
      // An old client sends `limit` alone, or nothing: it gets the newest entries.
      return .history(
        HistoryQuery(
          limit: try integer(request.limit, CommandTable.historyLimit),
          before: try CommandTable.historyCursor.checked(request.before)))
    case .test:
      return .test(
        seconds: try integer(request.seconds, CommandTable.testSeconds),
        scanSeconds: try integer(request.scanSeconds, CommandTable.testScanSeconds))
    case .acknowledge: return .acknowledge
    case .check: return .check
    case .awake: return .awake
    case .readerAdd:
      let key = request.key?.lowercased()
      if let key,
        key.utf8.count != 64
          || !key.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
      {
        throw ControlFailure(.badRequest, "reader.add: a key is 64 hex digits")
      }
      return .readerAdd(try readerName(), key: key)
    case .readerRemove: return .readerRemove(try readerName())
    case .readerList: return .readerList
    }
  }

  /// A bounded request field that has a default: the field, or the default when it is absent.
  private static func integer(_ value: Int?, _ bounds: BoundedInteger) throws(ControlFailure) -> Int {
    // Every bound used here has a default; one without would be a mistake in the table, and
    // is refused as a bad request rather than trapping on a client's input.
    guard let checked = try bounds.checked(value) else {
      throw ControlFailure(.badRequest, bounds.wireRule)
    }
    return checked
  }

  /// Encodes a reply or progress line (without the newline).
  public static func encode(_ reply: ControlReply) -> [UInt8] {
    encodeLine(reply)
  }

  /// Decodes a reply or progress line.
  public static func decodeReply(_ line: some Collection<UInt8>) throws(ControlFailure) -> ControlReply {
    do {
      return try JSONDecoder().decode(ControlReply.self, from: Data(line))
    } catch {
      throw ControlFailure(.failed, "puckd sent a reply this puckctl cannot read (a version mismatch?)")
    }
  }

  private static func encodeLine(_ value: some Encodable) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Encoding our own plain value types cannot fail.
    guard let data = try? encoder.encode(value) else { return Array(#"{"v":1}"#.utf8) }
    return [UInt8](data)
  }
}

/// A request that failed: a category the client maps to an exit code, and a message for a person.
public struct ControlFailure: Error, Hashable, Sendable, Codable, CustomStringConvertible {
  public var kind: Kind
  public var message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { message }

  /// The category of failure.
  public enum Kind: String, Hashable, Sendable, Codable {
    /// The request was malformed, unknown or out of range.
    case badRequest
    /// The peer lacks the role the command needs.
    case permissionDenied
    /// Refused by policy (pairing while a guard is open, a simulated scan on a real reader).
    case refused
    /// The operation ran and did not succeed (pairing timed out).
    case failed
    /// No such alarm.
    case notFound
  }
}
