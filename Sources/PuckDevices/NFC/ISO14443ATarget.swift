/// An ISO 14443-A tag the reader selected: what anticollision told about it.
public struct ISO14443ATarget: Hashable, Sendable {
  /// The UID (NFCID1) as the tag sent it: 4, 7 or 10 bytes for a conforming tag.
  public var uid: [UInt8]
  /// ATQA (SENS_RES), first byte high: 0x0044 for an NTAG21x.
  public var atqa: UInt16
  /// SAK (SEL_RES): 0x00 for an NTAG21x, 0x08 for a MIFARE Classic 1K.
  public var sak: UInt8

  /// A target with the given anticollision data.
  public init(uid: [UInt8], atqa: UInt16, sak: UInt8) {
    self.uid = uid
    self.atqa = atqa
    self.sak = sak
  }
}
