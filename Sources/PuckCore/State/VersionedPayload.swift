/// A payload stored on disk inside a versioned envelope (alarms, guards, pairing, history
/// entries). The type names the schema version it writes and the oldest it can still read.
///
/// Bump `schemaVersion` whenever the encoded form changes in a way an older puckd would
/// misread. To keep reading the old form, lower `oldestReadableSchemaVersion` and branch in
/// `init(from:)` on `decoder.userInfo[.schemaVersion]`, which holds the file's version.
public protocol VersionedPayload: Codable, Sendable {
  /// The version this build writes.
  static var schemaVersion: Int { get }
  /// The oldest version this build can still decode; defaults to `schemaVersion`.
  static var oldestReadableSchemaVersion: Int { get }
}

extension VersionedPayload {
  /// By default only the current version is readable.
  public static var oldestReadableSchemaVersion: Int { schemaVersion }
}
