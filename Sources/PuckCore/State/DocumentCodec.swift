// JSON is pure computation; FoundationEssentials has the codecs without Foundation's I/O.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The on-disk envelope of every state file and history line:
/// `{"payload": …, "schemaVersion": 1}`.
///
/// The payload is nested rather than merged into the envelope so that any `Codable` value fits
/// (an array, a string), its keys can never collide with the envelope's, and the version can be
/// read and checked before the payload is touched.
public enum DocumentCodec {
  /// Encodes a payload in its envelope: pretty-printed for whole files people may read, compact
  /// (a single line, no newline at the end) for JSON Lines.
  public static func encode<Payload: VersionedPayload>(_ payload: Payload, pretty: Bool = false)
    throws(DocumentError) -> [UInt8]
  {
    let encoder = JSONEncoder()
    encoder.outputFormatting =
      pretty
      ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    do {
      return Array(try encoder.encode(Envelope(schemaVersion: Payload.schemaVersion, payload: payload)))
    } catch {
      throw .unencodable(String(describing: error))
    }
  }

  /// Decodes a payload from its envelope, refusing a version this build cannot read before
  /// looking at the payload.
  public static func decode<Payload: VersionedPayload>(_ type: Payload.Type, from bytes: [UInt8])
    throws(DocumentError) -> Payload
  {
    guard bytes.contains(where: { !Self.isJSONWhitespace($0) }) else { throw .empty }
    let data = Data(bytes)
    let header: Header
    do {
      header = try JSONDecoder().decode(Header.self, from: data)
    } catch DecodingError.keyNotFound, DecodingError.typeMismatch, DecodingError.valueNotFound {
      throw .missingSchemaVersion
    } catch {
      throw .notJSON
    }
    let version = header.schemaVersion
    if version > Payload.schemaVersion {
      throw .newerSchemaVersion(found: version, newestReadable: Payload.schemaVersion)
    }
    if version < Payload.oldestReadableSchemaVersion {
      throw .olderSchemaVersion(found: version, oldestReadable: Payload.oldestReadableSchemaVersion)
    }
    let decoder = JSONDecoder()
    decoder.userInfo[.schemaVersion] = version
    do {
      return try decoder.decode(Envelope<Payload>.self, from: data).payload
    } catch let error as DecodingError {
      throw .badPayload(Self.summary(of: error))
    } catch {
      throw .badPayload(String(describing: error))
    }
  }

  private struct Header: Decodable {
    var schemaVersion: Int
  }

  private struct Envelope<Payload: Codable>: Codable {
    var schemaVersion: Int
    var payload: Payload
  }

  private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  /// `at payload.alarms[2].time: '25:00' is not a time`, short enough for a status line.
  private static func summary(of error: DecodingError) -> String {
    func path(_ codingPath: [any CodingKey]) -> String {
      var text = ""
      for key in codingPath {
        if let index = key.intValue {
          text += "[\(index)]"
        } else {
          text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
        }
      }
      return text.isEmpty ? "the top level" : text
    }
    switch error {
    case .keyNotFound(let key, let context):
      return "at \(path(context.codingPath)): missing '\(key.stringValue)'"
    case .typeMismatch(let type, let context):
      return "at \(path(context.codingPath)): expected \(type)"
    case .valueNotFound(let type, let context):
      return "at \(path(context.codingPath)): expected \(type), found null"
    case .dataCorrupted(let context):
      return "at \(path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
      return String(describing: error)
    }
  }
}

extension CodingUserInfoKey {
  /// The schema version of the file being decoded (an `Int`), for payloads that read more
  /// than one version.
  public static let schemaVersion = CodingUserInfoKey(rawValue: "puckalarm.schemaVersion")!
}

/// Why a state file or history line could not be read or written.
public enum DocumentError: Error, Hashable, Sendable, CustomStringConvertible {
  /// No content at all: a file truncated to nothing.
  case empty
  /// Not JSON: cut short, overwritten with garbage, or edited by hand.
  case notJSON
  /// JSON without a numeric `schemaVersion`: not one of puckd's files.
  case missingSchemaVersion
  /// Written by a newer puckd; this build does not know that format.
  case newerSchemaVersion(found: Int, newestReadable: Int)
  /// Written by a puckd so old that this build no longer reads its format.
  case olderSchemaVersion(found: Int, oldestReadable: Int)
  /// The envelope is fine but the content inside is not what puckd writes.
  case badPayload(String)
  /// The value could not be encoded (a bug: puckd's own types always encode).
  case unencodable(String)

  /// A sentence for status and logs.
  public var description: String {
    switch self {
    case .empty:
      "the file is empty (cut short, perhaps by a power loss)"
    case .notJSON:
      "the file is not valid JSON (cut short or overwritten)"
    case .missingSchemaVersion:
      "the file has no schemaVersion, so it was not written by puckd"
    case .newerSchemaVersion(let found, let newest):
      "the file is in format version \(found), written by a newer puckd; this one reads up to "
        + "version \(newest)"
    case .olderSchemaVersion(let found, let oldest):
      "the file is in format version \(found), from an old puckd; this one reads version "
        + "\(oldest) or later"
    case .badPayload(let detail):
      "the file's content is not valid: \(detail)"
    case .unencodable(let detail):
      "could not encode the data: \(detail)"
    }
  }
}
