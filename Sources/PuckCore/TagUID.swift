/// The UID of an ISO 14443-A tag: 4, 7 or 10 bytes, shown as colon-separated upper-case hex.
///
/// A UID is not a secret (docs/DESIGN.md P2), but logs show only its last two bytes so that a
/// journal shared for support does not carry the whole thing.
public struct TagUID: Hashable, Sendable, TextCodable, CustomStringConvertible {
  /// The UID's bytes, 4, 7 or 10 of them.
  public let bytes: [UInt8]

  /// The lengths ISO 14443-3 allows for a UID (single, double, triple size).
  public static let validLengths: Set<Int> = [4, 7, 10]

  /// Wraps raw bytes from a reader; fails for a length ISO 14443-3 does not allow.
  public init(bytes: [UInt8]) throws(UIDError) {
    guard Self.validLengths.contains(bytes.count) else {
      throw .badLength(bytes.count)
    }
    self.bytes = bytes
  }

  /// Parses `04:A2:3B:11:22:33:44`, `04a23b11223344` or `04-A2-...`: hex byte pairs,
  /// optionally separated by `:`, `-` or spaces (one kind of separator throughout).
  public init(parsing text: String) throws(UIDError) {
    let trimmed = text.trimmingWhitespace()
    guard !trimmed.isEmpty else { throw .empty }
    let separators: Set<Character> = [":", "-", " "]
    let used = Set(trimmed.filter { separators.contains($0) })
    guard used.count <= 1 else { throw .malformed(text) }
    var parsed: [UInt8] = []
    if let separator = used.first {
      for part in trimmed.split(separator: separator, omittingEmptySubsequences: false) {
        guard part.count == 2, part.allSatisfy(\.isHexDigit), let byte = UInt8(part, radix: 16)
        else { throw .malformed(text) }
        parsed.append(byte)
      }
    } else {
      guard trimmed.count % 2 == 0, trimmed.allSatisfy(\.isHexDigit) else { throw .malformed(text) }
      var index = trimmed.startIndex
      while index < trimmed.endIndex {
        let next = trimmed.index(index, offsetBy: 2)
        guard let byte = UInt8(trimmed[index..<next], radix: 16) else { throw .malformed(text) }
        parsed.append(byte)
        index = next
      }
    }
    try self.init(bytes: parsed)
  }

  /// `04:A2:3B:11:22:33:44`.
  public var description: String {
    bytes.map(Self.hex).joined(separator: ":")
  }

  /// The form for logs: only the last two bytes, `…:33:44`.
  public var masked: String {
    "…:" + bytes.suffix(2).map(Self.hex).joined(separator: ":")
  }

  /// True for the random 4-byte UIDs phones present when they emulate a card (first byte 0x08,
  /// ISO 14443-3 "random ID"): they change on every tap, so pairing one would lock the owner out.
  public var isRandom: Bool {
    bytes.count == 4 && bytes[0] == 0x08
  }

  /// Checks that this UID can be paired: not a random UID.
  public func validateForPairing() throws(UIDError) {
    if isRandom { throw .randomUID(masked) }
  }

  public init(codingText text: String) throws { try self.init(parsing: text) }

  public var codingText: String { description }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
  }
}

/// Why a UID was not accepted.
public enum UIDError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Nothing was given.
  case empty
  /// Not hex byte pairs.
  case malformed(String)
  /// A byte count other than 4, 7 or 10.
  case badLength(Int)
  /// A phone's random UID, different on every tap.
  case randomUID(String)

  public var description: String {
    switch self {
    case .empty:
      return "no UID given"
    case .malformed(let text):
      return "'\(text)' is not a UID: expected hex bytes like 04:A2:3B:11:22:33:44"
    case .badLength(let count):
      return "a UID has 4, 7 or 10 bytes, not \(count)"
    case .randomUID(let masked):
      return
        "UID \(masked) is a random UID (starts with 08), as phones present; it changes on every "
        + "tap and cannot be paired — use an NFC sticker or keyfob"
    }
  }
}

extension String {
  /// The string without leading and trailing spaces, tabs and newlines.
  func trimmingWhitespace() -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    guard let first = firstIndex(where: { !isSpace($0) }),
      let last = lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(self[first...last])
  }
}
