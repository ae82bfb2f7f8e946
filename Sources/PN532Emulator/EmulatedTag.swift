/// An ISO 14443-A tag lying on the emulated reader's antenna.
public struct EmulatedTag: Hashable, Sendable {
  /// The UID (NFCID1), 4, 7 or 10 bytes.
  public var uid: [UInt8]
  /// ATQA (SENS_RES), sent high byte first as the PN532 reports it: 0x0044 for an NTAG21x.
  public var atqa: UInt16
  /// SAK (SEL_RES): 0x00 for an NTAG21x / Ultralight, 0x08 for a MIFARE Classic 1K.
  public var sak: UInt8

  /// A tag with the given identity. Without `atqa`/`sak`, a 4-byte UID looks like a MIFARE
  /// Classic 1K (0x0004, 0x08) and a longer one like an NTAG21x (0x0044, 0x00).
  public init(uid: [UInt8], atqa: UInt16? = nil, sak: UInt8? = nil) {
    self.uid = uid
    self.atqa = atqa ?? (uid.count == 4 ? 0x0004 : 0x0044)
    self.sak = sak ?? (uid.count == 4 ? 0x08 : 0x00)
  }

  /// The UID as ISO 14443-3 anticollision sends it: cascade tag 0x88 before each
  /// incomplete cascade level. A host may select a tag by either form.
  var cascadedUID: [UInt8] {
    switch uid.count {
    case 7: return [0x88] + uid[0..<3] + uid[3...]
    case 10: return [0x88] + uid[0..<3] + [0x88] + uid[3..<6] + uid[6...]
    default: return uid
    }
  }
}
