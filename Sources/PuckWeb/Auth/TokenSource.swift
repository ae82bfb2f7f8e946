import PuckCore
import PuckSystem

/// Where the web app's secrets come from: 32 random bytes at a time, written as 64 lower-case
/// hex digits (256 bits). The kernel's random source in `puck-web`; a counter in tests, so a
/// test can tell which token is which.
public protocol TokenSource: Sendable {
  /// A new token; throws only when no random bytes can be had (the app then refuses to log in).
  func token() throws -> String
}

/// Tokens from `getrandom(2)`.
public struct SystemTokenSource: TokenSource {
  public init() {}

  public func token() throws -> String {
    Token.hex(try randomBytes(Token.byteCount))
  }
}

/// What the tokens have in common.
public enum Token {
  /// 256 bits.
  public static let byteCount = 32

  /// `bytes` as lower-case hex (the core's one encoder, `RemoteFrame.hex`).
  public static func hex(_ bytes: [UInt8]) -> String { RemoteFrame.hex(bytes) }

  /// Whether `given` is `expected`, comparing every byte whatever the earlier ones were, so the
  /// time taken does not tell an attacker how much of a guess was right.
  public static func matches(_ given: String?, _ expected: String) -> Bool {
    guard let given else { return false }
    let (left, right) = (Array(given.utf8), Array(expected.utf8))
    guard left.count == right.count else { return false }
    var difference: UInt8 = 0
    for index in left.indices { difference |= left[index] ^ right[index] }
    return difference == 0
  }

  /// Whether `text` has the shape of a token (64 lower-case hex digits); anything else is not
  /// looked up at all.
  public static func isWellFormed(_ text: String) -> Bool {
    text.utf8.count == byteCount * 2
      && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
  }
}
