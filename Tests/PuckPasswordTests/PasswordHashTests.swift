import Testing

@testable import PuckPassword

@Suite struct PasswordHashTests {
  @Test("a password is hashed with yescrypt and a fresh salt; only the same password matches")
  func hashAndMatch() throws {
    let hash = try PasswordHash(hashing: "correct horse")
    #expect(hash.encoded.hasPrefix("$y$"))
    #expect(!hash.encoded.contains("correct horse"))
    #expect(hash.matches("correct horse"))
    #expect(!hash.matches("correct horsE"))
    #expect(!hash.matches("correct horse "))
    #expect(!hash.matches(""))
    let again = try PasswordHash(hashing: "correct horse")
    #expect(again.encoded != hash.encoded, "a new salt each time")
    #expect(again.matches("correct horse"))
    let stored = try PasswordHash(encoded: hash.encoded)
    #expect(stored.matches("correct horse"))
  }

  @Test("passwords that cannot be set are refused: short, long, more than one line")
  func rules() {
    #expect(throws: PasswordError.tooShort) { try PasswordHash(hashing: "seven77") }
    #expect(throws: PasswordError.unusable) { try PasswordHash(hashing: "two\nlines here") }
    #expect(throws: PasswordError.unusable) { try PasswordHash(hashing: String(repeating: "x", count: 513)) }
    #expect((try? PasswordHash(hashing: "eight888")) != nil)
  }

  @Test("a stored text that is not a hash libcrypt knows is refused, and matches nothing")
  func notAHash() {
    let valid = "$y$j9T$U.vsDODxP63hZ0M2ON/bY.$gKIFfcfR1F8984oQdbhybHOKIQDrmJrvagyJgoV/Wt6"
    #expect((try? PasswordHash(encoded: valid)) != nil)
    for text in [
      "", "plain password", "$1", "$y$", "$y$j9T$", "$y$j9T$salt$", "$zz$abc$def", valid + " ", valid + "\n",
      String(repeating: "$", count: 500),
    ] {
      #expect(throws: PasswordError.notAHash, "\(text)") { try PasswordHash(encoded: text) }
    }
  }

  @Test("the comparison looks at lengths and every byte")
  func constantTimeEqual() {
    #expect(PasswordHash.constantTimeEqual([1, 2, 3], [1, 2, 3]))
    #expect(!PasswordHash.constantTimeEqual([1, 2, 3], [1, 2, 4]))
    #expect(!PasswordHash.constantTimeEqual([1, 2, 3], [1, 2]))
    #expect(!PasswordHash.constantTimeEqual([9, 2, 3], [1, 2, 3]))
  }
}
