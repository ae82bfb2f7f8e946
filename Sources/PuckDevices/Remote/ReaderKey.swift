import CCrypto
import Glibc
import PuckCore

/// A reader's 32-byte secret, shared by the dock and the reader node, and the HMAC-SHA256 it
/// signs messages with (libcrypto's `HMAC` with `EVP_sha256`). Stored as 64 hex digits in a
/// root-only file on both sides (docs/DESIGN.md M1).
public struct ReaderKey: Sendable {
  private let bytes: [UInt8]

  /// A new key from libcrypto's `RAND_bytes`; nil if the generator failed (it never should).
  public static func generate() -> ReaderKey? {
    var bytes = [UInt8](repeating: 0, count: 32)
    guard RAND_bytes(&bytes, 32) == 1 else { return nil }
    return ReaderKey(bytes: bytes)
  }

  /// 8 random bytes in hex: a sender's `boot` (docs/DESIGN.md M3), new at every start.
  public static func randomID() -> String {
    var bytes = [UInt8](repeating: 0, count: 8)
    if RAND_bytes(&bytes, 8) != 1 {
      // Never expected; a clock-derived ID still differs from the last start's.
      var now = timespec()
      clock_gettime(CLOCK_REALTIME, &now)
      bytes = withUnsafeBytes(of: now.tv_nsec ^ now.tv_sec << 20) { Array($0.prefix(8)) }
    }
    return RemoteFrame.hex(bytes)
  }

  /// The key spelled as 64 hex digits (surrounding whitespace allowed, as in a file).
  public init?(hex text: String) {
    let trimmed = String(text.filter { !$0.isWhitespace })
    guard trimmed.utf8.count == 64, let bytes = RemoteFrame.unhex(Array(trimmed.utf8)[...]) else {
      return nil
    }
    self.bytes = bytes
  }

  private init(bytes: [UInt8]) { self.bytes = bytes }

  /// The 64 hex digits, as written to the key file.
  public var hex: String { RemoteFrame.hex(bytes) }

  /// HMAC-SHA256 of `data` under this key.
  public func sign(_ data: [UInt8]) -> [UInt8] {
    var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    _ = bytes.withUnsafeBytes { key in
      data.withUnsafeBytes { input in
        HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), input.baseAddress, input.count, &mac, &length)
      }
    }
    return Array(mac.prefix(Int(length)))
  }

  /// Whether `mac` is this key's signature of `data`, compared in constant time (`CRYPTO_memcmp`).
  public func verify(_ data: [UInt8], mac: [UInt8]) -> Bool {
    let expected = sign(data)
    guard mac.count == expected.count, !expected.isEmpty else { return false }
    return CRYPTO_memcmp(expected, mac, expected.count) == 0
  }
}
