@testable import PuckCore

extension TagUID {
  /// A UID from bytes a test knows are a valid length.
  init(fixed bytes: [UInt8]) {
    do {
      try self.init(bytes: bytes)
    } catch {
      preconditionFailure("a test UID must have 4, 7 or 10 bytes")
    }
  }

  /// The paired puck of the wake-guard tests.
  static let testPuck = TagUID(fixed: [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44])
  /// A tag that is not paired.
  static let testStranger = TagUID(fixed: [0xDE, 0xAD, 0xBE, 0xEF])
}
