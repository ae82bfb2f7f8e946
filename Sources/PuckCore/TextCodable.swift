/// A value JSON carries as its text form: a date `"2026-03-02"`, a time `"06:30"`, a weekday
/// `"mon"`, an instant `"2026-03-30T03:30:00Z"`, a UID. Decoding parses the string; a string
/// that does not parse is `DecodingError.dataCorrupted` carrying the parser's reason, which
/// the state layer shows when it keeps a corrupt file aside.
public protocol TextCodable: Codable {
  /// The value `text` spells; what is thrown says, for a person, why it spells none.
  init(codingText text: String) throws
  /// The text written to JSON.
  var codingText: String { get }
}

extension TextCodable {
  public init(from decoder: any Decoder) throws {
    try self.init(codingTextFrom: decoder)
  }

  public func encode(to encoder: any Encoder) throws {
    try encodeCodingText(to: encoder)
  }

  /// Decodes the text form. An enum with raw values (`Weekday`) names this in its own
  /// `init(from:)`: the standard library's `RawRepresentable` coding would win otherwise.
  public init(codingTextFrom decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    do {
      try self.init(codingText: text)
    } catch {
      throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error)"))
    }
  }

  /// Encodes the text form.
  public func encodeCodingText(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(codingText)
  }
}

/// Why a text form did not parse, when the parser has no error type of its own.
public struct TextCodingError: Error, CustomStringConvertible {
  /// `'tuesday' is not a weekday`.
  public let description: String
}
