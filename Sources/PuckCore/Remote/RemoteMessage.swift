// JSON is pure computation; FoundationEssentials has the codecs without Foundation's I/O.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// One message between a dock and a reader node, through the MQTT broker (docs/DESIGN.md M2).
/// Every message is signed with the reader's key and carries who sent it, a per-start random
/// `boot`, a counter and the sender's clock, so a copy sent again, a stale one, or one from a
/// device without the key is refused (`RemoteSequence`, `RemoteFrame`).
public struct RemoteMessage: Hashable, Sendable, Codable {
  /// The reader's enrolled name (`kitchen`): the key that signs the message is this reader's.
  public var reader: String
  /// Random per start of the sender (hex): counters start again at 1 with a new boot.
  public var boot: String
  /// Increases by one with every message the sender signs in this boot.
  public var seq: UInt64
  /// The sender's wall clock when it signed, in Unix milliseconds.
  public var sentAt: Int64
  public var kind: Kind
  /// `arrived`: the tag.
  public var uid: TagUID?
  /// `arrived`: false for a tag that was lying on the reader when polling began (docs/DESIGN.md W7).
  public var fresh: Bool?
  /// `health`: `ok` or `fault`.
  public var state: String?
  /// `health`: what the reader is, or what went wrong and what to try.
  public var detail: String?
  /// `want`: the dock that sent it.
  public var dock: String?
  /// `want`: whether that dock wants the field on (a wake-up open or a pairing waiting).
  public var poll: Bool?

  /// A message of `kind`; fill in the fields the kind uses.
  public init(reader: String, boot: String, seq: UInt64, sentAt: Int64, kind: Kind) {
    self.reader = reader
    self.boot = boot
    self.seq = seq
    self.sentAt = sentAt
    self.kind = kind
  }

  /// What the message says.
  public enum Kind: String, Hashable, Sendable, Codable {
    /// Node → dock: a tag arrived on the reader (`uid`, `fresh`).
    case arrived
    /// Node → dock: the tag was taken away.
    case removed
    /// Node → dock: the reader's health (`state`, `detail`); also the node's heartbeat.
    case health
    /// Dock → node: whether this dock wants the reader polling (`poll`), from `dock`.
    case want
    /// Node → dock, on the presence topic: the node's last will, signed when it connects and
    /// published by the broker when it vanishes (or by the node when it stops). Taken only for
    /// the boot the dock last heard from, whatever its age (docs/DESIGN.md M5).
    case offline
  }
}

/// Why a message from the broker was not taken. Names and text from the message are bounded
/// (`LogText`) in the description: it goes to the log.
public enum RemoteMessageError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Not `<64 hex digits> <JSON>`, or the JSON is not a message.
  case malformed(String)
  /// Signed by another key than the named reader's (or by none).
  case badSignature(reader: String)
  /// Signed with the key of the reader the topic names, but naming another reader inside.
  case wrongTopic(topic: String, reader: String)
  /// Outside the accepted window around this side's clock, in milliseconds late (negative:
  /// from the future).
  case stale(reader: String, byMilliseconds: Int64)
  /// Its counter is not past the last one taken from this sender.
  case replayed(reader: String, seq: UInt64)
  /// A copy of the last message this receiver took, as the client library resends after a
  /// reconnect: not an attack, and logged as such.
  case redelivered(reader: String, seq: UInt64)
  /// Over `RemoteFrame.maximumSize` bytes: dropped before it was copied or read.
  case oversized(bytes: Int)

  /// The kinds of refusal, without their particulars: a flood of one kind is logged once a
  /// minute (`RepeatLimiter`).
  public enum Reason: String, Hashable, Sendable {
    case malformed, badSignature, wrongTopic, stale, replayed, redelivered, oversized
  }

  /// This refusal's kind.
  public var reason: Reason {
    switch self {
    case .malformed: return .malformed
    case .badSignature: return .badSignature
    case .wrongTopic: return .wrongTopic
    case .stale: return .stale
    case .replayed: return .replayed
    case .redelivered: return .redelivered
    case .oversized: return .oversized
    }
  }

  public var description: String {
    switch self {
    case .malformed(let why): return "not a PuckAlarm reader message: \(why)"
    case .badSignature(let reader):
      return "message for reader '\(LogText.bounded(reader))' has a bad signature (wrong key?)"
    case .wrongTopic(let topic, let reader):
      return "message for reader '\(LogText.bounded(reader))' came on \(LogText.bounded(topic, limit: 128))"
    case .stale(let reader, let late):
      let seconds = Double(abs(late)) / 1000
      return late >= 0
        ? "message from reader '\(LogText.bounded(reader))' is \(seconds) s old (a delayed or replayed message, or its clock is off)"
        : "message from reader '\(LogText.bounded(reader))' is \(seconds) s in the future (its clock is off)"
    case .replayed(let reader, let seq):
      return "message \(seq) from reader '\(LogText.bounded(reader))' was already taken (replayed)"
    case .redelivered(let reader, let seq):
      return
        "message \(seq) from reader '\(LogText.bounded(reader))' came again (a redelivery after a reconnect); it was taken once"
    case .oversized(let bytes):
      return "a message of \(bytes) bytes, over the limit of \(RemoteFrame.maximumSize), was dropped unread"
    }
  }
}

/// The bytes on the wire: the HMAC-SHA256 of the JSON body under the reader's key, as 64 lower
/// case hex digits, one space, and the body. Signing the exact bytes sent leaves nothing to
/// canonicalise.
public enum RemoteFrame {
  /// The largest frame taken (docs/DESIGN.md M8); every frame PuckAlarm sends is under 2 KB.
  public static let maximumSize = 4096

  /// The signed bytes of `message`; `sign` computes the MAC of the body.
  public static func seal(_ message: RemoteMessage, sign: ([UInt8]) -> [UInt8]) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // A struct of strings, numbers and booleans always encodes.
    let body = (try? Array(encoder.encode(message))) ?? []
    return Array(hex(sign(body)).utf8) + [0x20] + body
  }

  /// The message in `bytes`, which came on `topic`, a topic of `reader`'s: its size and
  /// signature are checked first, with `verify` (the MAC under `reader`'s key), and only a
  /// signed body is decoded (docs/DESIGN.md M8). The message must name `reader` itself.
  public static func open(
    _ bytes: [UInt8], from reader: String, on topic: String,
    verify: (_ body: [UInt8], _ mac: [UInt8]) -> Bool
  ) throws(RemoteMessageError) -> RemoteMessage {
    guard bytes.count <= maximumSize else { throw .oversized(bytes: bytes.count) }
    guard bytes.count > 65, bytes[64] == 0x20, let mac = unhex(bytes[..<64]) else {
      throw .malformed("no signature in front")
    }
    let body = Array(bytes[65...])
    guard verify(body, mac) else { throw .badSignature(reader: reader) }
    let message: RemoteMessage
    do {
      message = try JSONDecoder().decode(RemoteMessage.self, from: Data(body))
    } catch {
      throw .malformed("the body is not a message")
    }
    guard message.reader == reader else { throw .wrongTopic(topic: topic, reader: message.reader) }
    return message
  }

  /// `bytes` as lower-case hex digits.
  public static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// The bytes lower-case hex digits spell; nil for anything else.
  public static func unhex(_ text: ArraySlice<UInt8>) -> [UInt8]? {
    func nibble(_ c: UInt8) -> UInt8? {
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
      default: return nil
      }
    }
    guard text.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
      guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }
}
