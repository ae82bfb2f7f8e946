/// What a receiver remembers of one sender to refuse stale and replayed messages
/// (docs/DESIGN.md M3): the sender's boot and counter and the clock of the last message taken.
///
/// A message is taken only if its clock is within `window` of the receiver's, and it is newer
/// than the last one taken: a higher counter in the same boot, or a later clock in a new boot.
/// A scan held back by an outage (the client library resends after a reconnect) is past the
/// window by then and never reaches a later wake-up.
///
/// The dock keeps it on disk after each scan it takes (`reader-NAME.seen`, a `VersionedPayload`)
/// and starts each remote reader from it, so a scan taken once is never taken again, across
/// restarts and reloads (issue 22 item 5).
public struct RemoteSequence: Hashable, Sendable, Codable, VersionedPayload {
  /// How far apart the two clocks may be, and how late a message may arrive.
  public static let window: Int64 = 30_000
  public static let schemaVersion = 1

  private var boot: String?
  private var seq: UInt64 = 0
  private var sentAt: Int64 = .min
  /// Whether the last message was taken by this receiver, not read from the file: only then is
  /// a copy of it a redelivery (the client library resends after a reconnect); a copy of one
  /// taken by an earlier run is a replay.
  private var tookLastHere = false

  private enum CodingKeys: String, CodingKey {
    case boot, seq, sentAt
  }

  public init() {}

  /// A receiver that takes only messages signed after `sentAt` (its clock, Unix milliseconds):
  /// where what was taken before is unknown (the file unreadable), nothing signed before the
  /// reader started is taken.
  public init(takingOnlyAfter sentAt: Int64) {
    self.sentAt = sentAt
  }

  /// The sender's boot of the last message taken, nil before the first: a signed last will
  /// counts only for this boot.
  public var currentBoot: String? { boot }

  /// Takes `message` if it is fresh and new, at the receiver's clock `now` (Unix milliseconds).
  public mutating func admit(_ message: RemoteMessage, now: Int64, window: Int64 = Self.window)
    throws(RemoteMessageError)
  {
    let late = now - message.sentAt
    guard abs(late) <= window else { throw .stale(reader: message.reader, byMilliseconds: late) }
    if message.boot == boot {
      guard message.seq > seq else {
        if message.seq == seq && tookLastHere { throw .redelivered(reader: message.reader, seq: message.seq) }
        throw .replayed(reader: message.reader, seq: message.seq)
      }
    } else {
      guard message.sentAt > sentAt else { throw .replayed(reader: message.reader, seq: message.seq) }
    }
    boot = message.boot
    seq = message.seq
    sentAt = message.sentAt
    tookLastHere = true
  }
}

/// MQTT topics: everything under `puckalarm/reader/<name>/`.
public enum RemoteTopic {
  /// Node → docks: signed events and heartbeats.
  public static func events(_ reader: String) -> String { "puckalarm/reader/\(reader)/event" }
  /// The node's presence: `online` (retained, plain, for people) while connected, and its
  /// signed last will (`RemoteMessage.Kind.offline`) when it is gone.
  public static func presence(_ reader: String) -> String { "puckalarm/reader/\(reader)/presence" }
  /// Dock → node: a dock's signed wish for polling (retained).
  public static func want(_ reader: String, dock: String) -> String {
    "puckalarm/reader/\(reader)/want/\(dock)"
  }
  /// What a node subscribes to for every dock's wish.
  public static func wants(_ reader: String) -> String { "puckalarm/reader/\(reader)/want/+" }

  /// Whether `name` can be a reader's or a dock's name: 1 to 32 of `a-z 0-9 - _` (no MQTT
  /// wildcards or separators, safe in a file name).
  public static func isValidName(_ name: String) -> Bool {
    (1...32).contains(name.utf8.count)
      && name.utf8.allSatisfy {
        (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F
      }
  }
}

extension RemoteTopic {
  /// The dock a want topic of `reader` names (`puckalarm/reader/kitchen/want/bedroom` →
  /// `bedroom`); nil for any other topic.
  public static func dock(inWant topic: String, of reader: String) -> String? {
    let prefix = "puckalarm/reader/\(reader)/want/"
    guard topic.hasPrefix(prefix) else { return nil }
    let dock = String(topic.dropFirst(prefix.count))
    return isValidName(dock) ? dock : nil
  }
}
