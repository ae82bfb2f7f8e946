import Testing

@testable import PuckWeb

@Suite struct TokenTests {
  @Test("system tokens are 256 bits as 64 hex digits, and never repeat")
  func systemTokens() throws {
    let source = SystemTokenSource()
    let tokens = try (0..<64).map { _ in try source.token() }
    #expect(tokens.allSatisfy(Token.isWellFormed))
    #expect(Set(tokens).count == tokens.count)
    #expect(Token.hex([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
  }

  @Test("a token matches only itself; malformed ones are not tokens")
  func matching() {
    let token = String(repeating: "ab", count: 32)
    #expect(Token.matches(token, token))
    #expect(!Token.matches(String(token.dropLast()) + "c", token))
    #expect(!Token.matches(String(token.dropLast()), token))
    #expect(!Token.matches(nil, token))
    #expect(!Token.matches("", token))
    #expect(!Token.isWellFormed(token.uppercased()))
    #expect(!Token.isWellFormed(token + "0"))
    #expect(!Token.isWellFormed(String(repeating: "g", count: 64)))
  }
}
