import PuckCore
import Testing

/// A payload with two readable versions, to exercise the version checks.
private struct Note: VersionedPayload, Equatable {
  static let schemaVersion = 2
  static let oldestReadableSchemaVersion = 1
  var text: String
  var readFromVersion: Int? = nil

  init(text: String) { self.text = text }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    text = try container.decode(String.self, forKey: .text)
    readFromVersion = decoder.userInfo[.schemaVersion] as? Int
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(text, forKey: .text)
  }

  enum CodingKeys: String, CodingKey { case text, readFromVersion }
}

@Suite struct DocumentCodecTests {
  func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

  @Test func envelopeFormat() throws {
    let tag = Pairing(
      pucks: [PairedTag(uid: try TagUID(parsing: "04:A2:3B:11:22:33:44"), pairedAt: Instant(unixSeconds: 0))])
    let line = String(decoding: try DocumentCodec.encode(tag), as: UTF8.self)
    #expect(
      line
        == #"{"payload":{"pucks":[{"name":"primary","pairedAt":"1970-01-01T00:00:00Z","uid":"04:A2:3B:11:22:33:44"}]},"schemaVersion":2}"#
    )
    #expect(try DocumentCodec.decode(Pairing.self, from: bytes(line)) == tag)
    let pretty = try DocumentCodec.encode(tag, pretty: true)
    #expect(try DocumentCodec.decode(Pairing.self, from: pretty) == tag)
    let version1 =
      #"{"payload":{"pairedAt":"1970-01-01T00:00:00Z","uid":"04:A2:3B:11:22:33:44"},"schemaVersion":1}"#
    #expect(try DocumentCodec.decode(Pairing.self, from: bytes(version1)) == tag, "version 1 migrates")
  }

  @Test func payloadSeesTheFileVersion() throws {
    let old = try DocumentCodec.decode(
      Note.self, from: bytes(#"{"schemaVersion":1,"payload":{"text":"hi"}}"#))
    #expect(old.readFromVersion == 1)
  }

  @Test func refusals() {
    func error(_ text: String) -> DocumentError? {
      do {
        _ = try DocumentCodec.decode(Note.self, from: bytes(text))
        return nil
      } catch { return error }
    }
    #expect(error("") == .empty)
    #expect(error("  \n") == .empty)
    #expect(error(#"{"schemaVersion":2,"payl"#) == .notJSON)
    #expect(error("\u{0}\u{7}garbage") == .notJSON)
    #expect(error(#"{"payload":{"text":"hi"}}"#) == .missingSchemaVersion)
    #expect(error(#"{"schemaVersion":"2","payload":{"text":"hi"}}"#) == .missingSchemaVersion)
    #expect(
      error(#"{"schemaVersion":3,"payload":{"text":"hi"}}"#)
        == .newerSchemaVersion(found: 3, newestReadable: 2))
    #expect(
      error(#"{"schemaVersion":0,"payload":{"text":"hi"}}"#)
        == .olderSchemaVersion(found: 0, oldestReadable: 1))
    #expect(
      error(#"{"schemaVersion":2,"payload":{"txt":"hi"}}"#) == .badPayload("at payload: missing 'text'"))
    #expect(
      error(#"{"schemaVersion":3,"payload":{}}"#)?.description
        == "the file is in format version 3, written by a newer puckd; this one reads up to version 2")
  }

  @Test func compactTimestamp() {
    let instant = Instant(
      utcDate: LocalDate(year: 2026, month: 12, day: 2), secondsOfDay: 11 * 3600 + 22 * 60 + 33)
    #expect(instant.compactUTC == "20261202T112233Z")
  }
}
