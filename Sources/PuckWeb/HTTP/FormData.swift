/// The fields of a form as a browser posts it (`application/x-www-form-urlencoded`): names and
/// values percent-decoded, `+` as a space, in the order sent. A body that does not decode
/// (a bad `%` escape, bytes that are not UTF-8, more than `maximumFields` fields) is refused
/// whole, never read in part.
public struct FormData: Hashable, Sendable {
  /// The most fields a form of the web app may have (the alarm form has about a dozen).
  public static let maximumFields = 32

  /// Every field, in the order sent.
  public let fields: [(name: String, value: String)]

  /// Decodes `body`; nil when it is not a well-formed form.
  public init?(urlEncoded body: [UInt8]) {
    var fields: [(name: String, value: String)] = []
    for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
      guard fields.count < Self.maximumFields else { return nil }
      let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = Self.decode(parts[0]), !name.isEmpty,
        let value = parts.count == 2 ? Self.decode(parts[1]) : ""
      else { return nil }
      fields.append((name, value))
    }
    self.fields = fields
  }

  /// The first value of `name`.
  public subscript(name: String) -> String? { fields.first { $0.name == name }?.value }

  /// Every value of `name` (a group of check boxes), in order.
  public func values(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

  /// `+` as a space and `%XX` as the byte, the whole as UTF-8; nil for a bad escape or bytes
  /// that are not UTF-8.
  static func decode(_ encoded: ArraySlice<UInt8>) -> String? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(encoded.count)
    var index = encoded.startIndex
    while index < encoded.endIndex {
      let byte = encoded[index]
      if byte == UInt8(ascii: "%") {
        guard index + 2 < encoded.endIndex, let high = hexValue(encoded[index + 1]),
          let low = hexValue(encoded[index + 2])
        else { return nil }
        bytes.append(high << 4 | low)
        index += 3
      } else {
        bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
        index += 1
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
  }

  public static func == (lhs: FormData, rhs: FormData) -> Bool {
    lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    for field in fields {
      hasher.combine(field.name)
      hasher.combine(field.value)
    }
  }
}
