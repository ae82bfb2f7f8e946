import FoundationEssentials

/// The control socket's wire format: one JSON object per line, each carrying the protocol
/// version `v`. A request is answered by zero or more progress lines and one final reply.
public enum ControlWire {
  /// The protocol version this build speaks.
  public static let version = 1
  /// Longest request line accepted; a longer one is answered with an error and the connection closed.
  public static let maxRequestBytes = 64 * 1024

  /// Encodes a request as one line (without the newline): `v`, `command` and each argument
  /// its declaration sends, under its field.
  public static func encode(_ request: ControlRequest) -> [UInt8] {
    encodeLine(WireRequest(request: request))
  }

  /// Decodes and validates one request line. A field that does not parse is named, with why.
  public static func decode(_ line: some Collection<UInt8>) throws(ControlFailure) -> ControlRequest {
    let request: ControlRequest
    do {
      request = try JSONDecoder().decode(WireRequest.self, from: Data(line)).request
    } catch let failure as ControlFailure {
      throw failure
    } catch {
      throw ControlFailure(
        .badRequest, "not a valid request (one JSON object per line, with \"v\" and \"command\")")
    }
    return try request.validated()
  }

  /// A request as it travels: a flat object whose fields are the declared arguments.
  private struct WireRequest: Codable {
    var request: ControlRequest

    init(request: ControlRequest) { self.request = request }

    private enum Header: String, CodingKey { case v, command }

    init(from decoder: any Decoder) throws {
      let header = try decoder.container(keyedBy: Header.self)
      let v = try header.decode(Int.self, forKey: .v)
      let command = try header.decode(String.self, forKey: .command)
      guard v == version else {
        throw ControlFailure(
          .badRequest, "protocol version \(v) is not supported (this puckd speaks \(version))")
      }
      guard let name = CommandName(rawValue: command), name.spec.home == .daemon else {
        throw ControlFailure(.badRequest, "unknown command '\(command.prefix(40))'")
      }
      let fields = try decoder.container(keyedBy: Field.self)
      var arguments: [Field: ArgumentValue] = [:]
      for argument in name.spec.arguments where argument.sent && arguments[argument.field] == nil {
        arguments[argument.field] = try argument.kind.decode(argument.field, from: fields, command: name)
      }
      request = ControlRequest(name, arguments)
    }

    func encode(to encoder: any Encoder) throws {
      var header = encoder.container(keyedBy: Header.self)
      try header.encode(version, forKey: .v)
      try header.encode(request.name.rawValue, forKey: .command)
      var fields = encoder.container(keyedBy: Field.self)
      for argument in request.spec.arguments where argument.sent {
        switch request.arguments[argument.field] {
        case .flag(let value)?: try fields.encode(value, forKey: argument.field)
        case .integer(let value)?: try fields.encode(value, forKey: argument.field)
        case .text(let value)?: try fields.encode(value, forKey: argument.field)
        case .time(let value)?: try fields.encode(value, forKey: argument.field)
        case .days(let value)?: try fields.encode(value.sorted(), forKey: argument.field)
        case .date(let value)?: try fields.encode(value, forKey: argument.field)
        case .uid(let value)?: try fields.encode(value.description, forKey: argument.field)
        case nil: break
        }
      }
    }
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

  /// What `body` returns; whatever it throws becomes a `failed` failure saying
  /// `context: error` (or only the error, without a context).
  public static func failing<Value>(_ context: String? = nil, _ body: () throws -> Value)
    throws(ControlFailure)
    -> Value
  {
    do {
      return try body()
    } catch {
      throw ControlFailure(.failed, context.map { "\($0): \(error)" } ?? "\(error)")
    }
  }
}

extension ArgumentKind {
  /// A field of a request, read as this kind; nil when absent. A value that does not parse is
  /// refused with the field's name and the parser's reason.
  fileprivate func decode(
    _ field: Field, from fields: KeyedDecodingContainer<Field>, command: CommandName
  ) throws(ControlFailure) -> ArgumentValue? {
    do {
      switch self {
      case .flag: return try fields.decodeIfPresent(Bool.self, forKey: field).map(ArgumentValue.flag)
      case .integer, .alarmID:
        return try fields.decodeIfPresent(Int.self, forKey: field).map(ArgumentValue.integer)
      case .text: return try fields.decodeIfPresent(String.self, forKey: field).map(ArgumentValue.text)
      case .standardInput:
        return try fields.decodeIfPresent(String.self, forKey: field).map { .text($0.lowercased()) }
      case .days:
        guard let names = try fields.decodeIfPresent([String].self, forKey: field) else { return nil }
        var days: Set<Weekday> = []
        for name in names { days.formUnion(try Weekday.parseSet(name)) }
        return .days(days)
      case .date, .time, .tagUID:
        guard let text = try fields.decodeIfPresent(String.self, forKey: field) else { return nil }
        return try parse(text)
      }
    } catch let failure as ControlFailure {
      throw ControlFailure(.badRequest, "\(command.rawValue): \(field.rawValue): \(failure.message)")
    } catch let error as DecodingError {
      let expected = placeholder ?? "true or false"
      throw ControlFailure(
        .badRequest, "\(command.rawValue): \(field.rawValue) must be \(expected) (\(error.kind))")
    } catch {
      throw ControlFailure(.badRequest, "\(command.rawValue): \(field.rawValue): \(error)")
    }
  }
}

extension DecodingError {
  /// What kind of mistake it was, in a word or two.
  fileprivate var kind: String {
    switch self {
    case .typeMismatch: return "another type"
    case .valueNotFound: return "null"
    default: return "unreadable"
    }
  }
}
