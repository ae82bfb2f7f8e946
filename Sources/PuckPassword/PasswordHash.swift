import CCrypt
import Glibc

/// Why a password could not be hashed or a hash not used.
public enum PasswordError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Shorter than `PasswordHash.minimumLength` characters.
  case tooShort
  /// Longer than `PasswordHash.maximumBytes`, or holding a NUL or a line break.
  case unusable
  /// libcrypt failed (`function`): no random bytes, or yescrypt unavailable.
  case library(function: String)
  /// The stored text is not a hash libcrypt accepts.
  case notAHash

  public var description: String {
    switch self {
    case .tooShort: return "the password must be at least \(PasswordHash.minimumLength) characters"
    case .unusable:
      return "the password must be one line of at most \(PasswordHash.maximumBytes) bytes"
    case .library(let function): return "\(function) failed: libcrypt could not hash the password"
    case .notAHash: return "the stored web password is not a password hash; set it again"
    }
  }
}

/// A password hashed by the system's libcrypt with yescrypt (`$y$...`), the method Debian's
/// own `/etc/shadow` uses: a salt from the kernel's random source, the library's default cost.
/// The only owner of libcrypt calls; the hash is all that is ever stored.
public struct PasswordHash: Hashable, Sendable {
  /// The encoded hash: method, cost, salt and digest, as `crypt(3)` writes it.
  public let encoded: String

  /// The fewest characters a password may have.
  public static let minimumLength = 8
  /// The most bytes a password may have (a login form's field is bounded by this too).
  public static let maximumBytes = 512

  /// The characters of an encoded hash: crypt's base-64 alphabet, the separators and the
  /// parameter characters some methods use.
  private static let alphabet = Set(
    Array("./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz$=,-".utf8))

  /// A hash that was stored before; `.notAHash` unless libcrypt takes it as a setting of a
  /// method it supports (`crypt_checksalt`).
  public init(encoded: String) throws(PasswordError) {
    // `$method$…$digest`: at least a method, a salt and a digest (a bare setting such as `$y$`
    // is not a hash), in crypt's alphabet, of a method libcrypt supports.
    let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
    guard encoded.hasPrefix("$"), encoded.utf8.count < Int(CRYPT_OUTPUT_SIZE), fields.count >= 4,
      fields.dropFirst().allSatisfy({ !$0.isEmpty }),
      encoded.utf8.allSatisfy({ Self.alphabet.contains($0) }), crypt_checksalt(encoded) == CRYPT_SALT_OK
    else { throw .notAHash }
    self.encoded = encoded
  }

  /// Hashes `password` with yescrypt and a fresh salt (`crypt_gensalt_ra("$y$", 0, NULL, 0)`:
  /// the default cost, random bytes from the kernel), then `crypt_ra`.
  public init(hashing password: String) throws(PasswordError) {
    try Self.check(password)
    guard let setting = crypt_gensalt_ra("$y$", 0, nil, 0) else {
      throw .library(function: "crypt_gensalt_ra")
    }
    defer { free(setting) }
    guard let hash = Self.crypt(password, setting: setting) else { throw .library(function: "crypt_ra") }
    encoded = hash
  }

  /// Whether `password` is the one this hash was made from: hashed again with this hash as the
  /// setting, and the two compared in time that does not depend on where they first differ.
  public func matches(_ password: String) -> Bool {
    guard !password.isEmpty, let again = Self.crypt(password, setting: encoded) else { return false }
    return Self.constantTimeEqual(Array(again.utf8), Array(encoded.utf8))
  }

  /// Refuses a password that cannot be set: too short, too long, or not one line.
  public static func check(_ password: String) throws(PasswordError) {
    guard password.utf8.count <= maximumBytes,
      !password.utf8.contains(where: { $0 == 0 || $0 == 10 || $0 == 13 })
    else { throw .unusable }
    guard password.count >= minimumLength else { throw .tooShort }
  }

  /// `crypt_ra(password, setting)`, or nil when libcrypt refuses (a NULL result).
  private static func crypt(_ password: String, setting: UnsafePointer<CChar>) -> String? {
    guard password.utf8.count <= maximumBytes, !password.utf8.contains(0) else { return nil }
    var data: UnsafeMutableRawPointer?
    var size: Int32 = 0
    defer {
      // The work area holds the password and intermediate state: cleared before it is freed.
      if let data {
        memset(data, 0, Int(size))
        free(data)
      }
    }
    guard let result = crypt_ra(password, setting, &data, &size), result.pointee != CChar(UInt8(ascii: "*"))
    else { return nil }
    return String(cString: result)
  }

  private static func crypt(_ password: String, setting: String) -> String? {
    setting.withCString { crypt(password, setting: $0) }
  }

  /// Equal length and bytes, looking at every byte whatever the earlier ones were.
  static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
    guard left.count == right.count else { return false }
    var difference: UInt8 = 0
    for index in left.indices { difference |= left[index] ^ right[index] }
    return difference == 0
  }
}
