/// Why time-zone rules could not be read from a TZif file or a POSIX TZ string.
public enum ZoneRulesError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The data does not start with the `TZif` magic.
  case notTZif(zone: String)
  /// The data ends before the counts in its header say it should.
  case truncated(zone: String)
  /// The TZif data is inconsistent (an index out of range, transitions out of order, …).
  case malformed(zone: String, reason: String)
  /// A POSIX TZ string (a TZif footer or a `TZ` value) could not be parsed.
  case badPosixTZ(String, reason: String)

  /// The message for the person reading the log.
  public var description: String {
    switch self {
    case .notTZif(let zone):
      return "the zone file for '\(zone)' is not a TZif file (it does not start with 'TZif')"
    case .truncated(let zone):
      return "the zone file for '\(zone)' is cut short; reinstall the tzdata package"
    case .malformed(let zone, let reason):
      return "the zone file for '\(zone)' is damaged: \(reason); reinstall the tzdata package"
    case .badPosixTZ(let text, let reason):
      return "'\(text)' is not a POSIX TZ rule like 'EET-2EEST,M3.5.0/3,M10.5.0/4': \(reason)"
    }
  }
}
