import Synchronization

@testable import PuckWeb

/// Tokens a test can tell apart: 64 hex digits ending in a counter.
final class CountingTokens: TokenSource {
  private let next = Mutex(0)

  func token() throws -> String {
    let number = next.withLock { value -> Int in
      value += 1
      return value
    }
    let digits = String(number, radix: 16)
    return String(repeating: "0", count: 64 - digits.count) + digits
  }
}
