/// The tag whose scan resolves a wake guard, and when it was paired (docs/DESIGN.md P1).
/// Stored in `pairing.json`.
public struct PairedTag: VersionedPayload, Hashable {
  /// Version 1: `{"pairedAt": "2026-03-30T03:30:00Z", "uid": "04:A2:3B:11:22:33:44"}`.
  public static let schemaVersion = 1
  /// The paired tag's UID.
  public var uid: TagUID
  /// When it was paired.
  public var pairedAt: Instant

  /// A pairing record.
  public init(uid: TagUID, pairedAt: Instant) {
    self.uid = uid
    self.pairedAt = pairedAt
  }
}
