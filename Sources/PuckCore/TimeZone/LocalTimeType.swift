/// One kind of local time a zone can be in: its offset from UTC, whether the zone calls it
/// daylight saving time, and its abbreviation (`EET`, `EEST`, `+1030`).
public struct LocalTimeType: Hashable, Sendable {
  /// Seconds east of UTC (`7200` for EET, `-18000` for EST).
  public var offset: Int
  /// Whether the zone's data marks this as daylight saving time. Europe/Dublin marks winter
  /// time (GMT, offset 0) as DST with a negative save, so this is not "is summer".
  public var isDST: Bool
  /// The abbreviation, as the zone's data spells it (`EEST`, `+11`).
  public var abbreviation: String

  /// The offsets RFC 8536 allows (−24:59:59 … +25:59:59); the schedule relies on this bound
  /// when it looks for the instants that carry a local time.
  static let offsetRange = -89_999...93_599
}
