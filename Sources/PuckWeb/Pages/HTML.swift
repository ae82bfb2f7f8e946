/// HTML that is safe to send. Written as a string literal: the literal's own text is markup
/// (it is in the source), and every `String` interpolated into it is escaped, so a label, a
/// puck's name or a message from puckd can only ever be text (issue 25: "every label and name
/// escaped"). Only another `HTML` value goes in as markup.
public struct HTML: Hashable, Sendable, ExpressibleByStringInterpolation {
  /// The markup.
  public private(set) var text: String

  public init(stringLiteral value: String) {
    text = value
  }

  public init(stringInterpolation: Interpolation) {
    text = stringInterpolation.text
  }

  private init(markup: String) {
    text = markup
  }

  /// Builds an `HTML` value: literal parts as markup, interpolations escaped unless they are
  /// `HTML` themselves.
  public struct Interpolation: StringInterpolationProtocol {
    var text = ""

    public init(literalCapacity: Int, interpolationCount: Int) {
      text.reserveCapacity(literalCapacity + 16 * interpolationCount)
    }

    public mutating func appendLiteral(_ literal: String) { text += literal }
    /// Text: escaped.
    public mutating func appendInterpolation(_ value: String) { text += HTML.escape(value) }
    /// A number.
    public mutating func appendInterpolation(_ value: Int) { text += String(value) }
    /// Markup, as it is.
    public mutating func appendInterpolation(_ html: HTML) { text += html.text }
    /// Markup, one part after the other.
    public mutating func appendInterpolation(_ parts: [HTML]) {
      for part in parts { text += part.text }
    }
    /// Markup when there is some, nothing otherwise.
    public mutating func appendInterpolation(_ html: HTML?) { text += html?.text ?? "" }
  }

  /// `text` with the five characters that mean something in HTML text or in a quoted
  /// attribute written as character references.
  public static func escape(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for character in text.unicodeScalars {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&#39;"
      default: escaped.unicodeScalars.append(character)
      }
    }
    return escaped
  }

  /// The parts one after the other.
  public static func joined(_ parts: [HTML]) -> HTML {
    HTML(markup: parts.map(\.text).joined())
  }
}
