/// One paired tag, a puck (docs/DESIGN.md P1, P6): its UID, its name (`primary`, `backup in
/// the car`), when it was paired and when a reader last saw it.
public struct PairedTag: Hashable, Sendable, Codable {
  /// The name a pairing from before names existed gets.
  public static let defaultName = "primary"

  /// The paired tag's UID.
  public var uid: TagUID
  /// When it was paired.
  public var pairedAt: Instant
  /// What its owner calls it; unique on the dock.
  public var name: String
  /// When a reader last read it (during a wake-up, a pairing or a rehearsal); nil until then.
  public var lastSeen: Instant?

  /// A pairing record.
  public init(uid: TagUID, pairedAt: Instant, name: String = PairedTag.defaultName, lastSeen: Instant? = nil)
  {
    self.uid = uid
    self.pairedAt = pairedAt
    self.name = name
    self.lastSeen = lastSeen
  }

  private enum CodingKeys: String, CodingKey {
    case uid, pairedAt, name, lastSeen
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    uid = try container.decode(TagUID.self, forKey: .uid)
    pairedAt = try container.decode(Instant.self, forKey: .pairedAt)
    name = try container.decodeIfPresent(String.self, forKey: .name) ?? Self.defaultName
    lastSeen = try container.decodeIfPresent(Instant.self, forKey: .lastSeen)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(uid, forKey: .uid)
    try container.encode(pairedAt, forKey: .pairedAt)
    try container.encode(name, forKey: .name)
    try container.encodeIfPresent(lastSeen, forKey: .lastSeen)
  }

  /// `backup in the car (…:55:66)`: how history, logs and status name it.
  public var display: String { "\(name) (\(uid.masked))" }
}

/// The pucks paired with the dock, stored in `pairing.json` (docs/DESIGN.md P6): any of them
/// ends a wake-up.
///
/// Version 2: `{"pucks": [{"uid": …, "pairedAt": …, "name": "primary", "lastSeen": …}]}`.
/// Version 1 (one tag, `{"uid": …, "pairedAt": …}`) still reads, as one puck named `primary`;
/// the next save writes version 2.
public struct Pairing: VersionedPayload, Hashable {
  public static let schemaVersion = 2
  public static let oldestReadableSchemaVersion = 1
  /// How many pucks a dock keeps.
  public static let maximumPucks = 8
  /// What a puck's name may be.
  public static let nameRule =
    "a puck's name is 1-32 characters on one line (e.g. primary, backup in the car)"

  /// In the order they were paired.
  public var pucks: [PairedTag]

  public init(pucks: [PairedTag] = []) {
    self.pucks = pucks
  }

  private enum CodingKeys: String, CodingKey {
    case pucks
  }

  public init(from decoder: any Decoder) throws {
    if decoder.userInfo[.schemaVersion] as? Int == 1 {
      pucks = [try PairedTag(from: decoder)]
      return
    }
    pucks = try decoder.container(keyedBy: CodingKeys.self).decode([PairedTag].self, forKey: .pucks)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(pucks, forKey: .pucks)
  }

  /// The puck with this UID.
  public func puck(_ uid: TagUID) -> PairedTag? { pucks.first { $0.uid == uid } }

  /// The puck with this name.
  public func puck(named name: String) -> PairedTag? { pucks.first { $0.name == name } }

  /// The paired UIDs with their names, for the wake guard.
  public var names: [TagUID: String] {
    Dictionary(pucks.map { ($0.uid, $0.name) }, uniquingKeysWith: { first, _ in first })
  }

  /// The name a new puck gets when none is given: `primary` for the first, else `puck 2`, ….
  public var nextDefaultName: String {
    guard !pucks.isEmpty else { return PairedTag.defaultName }
    var number = pucks.count + 1
    while puck(named: "puck \(number)") != nil { number += 1 }
    return "puck \(number)"
  }

  /// Whether `name` may name a puck: 1 to 32 characters, none of them a control character, not
  /// starting or ending with a space.
  public static func isAcceptableName(_ name: String) -> Bool {
    (1...32).contains(name.count) && name.utf8.count <= 128
      && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
      && name.first != " " && name.last != " "
  }
}
