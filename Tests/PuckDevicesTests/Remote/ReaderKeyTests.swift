import PuckCore
import PuckDevices
import Testing

/// The reader key and its HMAC-SHA256, through the real libcrypto (docs/DESIGN.md M1).
@Suite struct ReaderKeyTests {
  private let key = ReaderKey(hex: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")

  @Test func signsAsHMACSHA256() throws {
    let key = try #require(self.key)
    // Python: hmac.new(bytes(range(32)), b"what do ya want for nothing?", hashlib.sha256).hexdigest()
    #expect(
      RemoteFrame.hex(key.sign(Array("what do ya want for nothing?".utf8)))
        == "099805f4ac310786968565c098db515cc50862b420ae31e20238312344bed36a")
  }

  @Test func verifiesOnlyItsOwnSignature() throws {
    let key = try #require(self.key)
    let data = Array("a scan".utf8)
    let mac = key.sign(data)
    #expect(key.verify(data, mac: mac))
    #expect(!key.verify(Array("a scan!".utf8), mac: mac))
    #expect(!key.verify(data, mac: Array(mac.dropLast())))
    #expect(!key.verify(data, mac: []))
    let other = try #require(ReaderKey.generate())
    #expect(!other.verify(data, mac: mac))
  }

  @Test func readsOnlySixtyFourHexDigits() throws {
    #expect(ReaderKey(hex: "  000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n") != nil)
    #expect(ReaderKey(hex: "0001") == nil)
    #expect(ReaderKey(hex: String(repeating: "g", count: 64)) == nil)
    let made = try #require(ReaderKey.generate())
    #expect(ReaderKey(hex: made.hex)?.hex == made.hex)
    #expect(ReaderKey.generate()?.hex != made.hex, "two keys differ")
    #expect(ReaderKey.randomID().count == 16)
  }
}
