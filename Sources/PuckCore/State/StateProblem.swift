/// A state file that failed to decode and what was done about it (docs/DESIGN.md D3); status shows
/// it until the owner acknowledges it.
public struct StateProblem: Hashable, Sendable, Codable, CustomStringConvertible {
  /// What puckd used instead of the unreadable content.
  public enum Fallback: String, Hashable, Sendable, Codable {
    /// The last good copy (`NAME.prev`).
    case lastGoodCopy
    /// Nothing: the file's content is treated as absent (no alarms, not paired, ...).
    case empty
    /// The readable parts (history: the lines that decoded).
    case readableParts
  }

  /// The file's name in the state directory (`alarms.json`).
  public var file: String
  /// Why it could not be read, as a sentence.
  public var reason: String
  /// The name the unreadable file was kept under (`alarms.json.corrupt-20261202T112233Z`), or
  /// nil when nothing was copied aside.
  public var keptAs: String?
  /// What was used instead.
  public var fallback: Fallback
  /// When the problem was found.
  public var detectedAt: Instant

  /// `alarms.json could not be read: … ; kept as alarms.json.corrupt-…; using the last good copy`.
  public var description: String {
    var text = "\(file) could not be read: \(reason)"
    if let keptAs { text += "; kept as \(keptAs)" }
    switch fallback {
    case .lastGoodCopy: text += "; using the last good copy"
    case .empty: text += "; no good copy, starting without it"
    case .readableParts: text += "; using the readable parts"
    }
    return text
  }

  /// A problem record.
  public init(file: String, reason: String, keptAs: String?, fallback: Fallback, detectedAt: Instant) {
    self.file = file
    self.reason = reason
    self.keptAs = keptAs
    self.fallback = fallback
    self.detectedAt = detectedAt
  }
}

/// The unacknowledged problems, as stored in the state directory (`problems.json`).
public struct StateProblemLog: VersionedPayload, Hashable {
  /// Version 1: `{"problems": [StateProblem]}`.
  public static let schemaVersion = 1
  /// Oldest first.
  public var problems: [StateProblem]

  /// A log holding these problems.
  public init(problems: [StateProblem] = []) {
    self.problems = problems
  }
}

extension Instant {
  /// `20261202T112233Z`: the compact UTC form used in file names (no colons, sorts by time).
  public var compactUTC: String {
    let (date, seconds) = utcDateAndTime
    return "\(pad(date.year, 4))\(pad(date.month, 2))\(pad(date.day, 2))T"
      + "\(pad(seconds / 3600, 2))\(pad(seconds / 60 % 60, 2))\(pad(seconds % 60, 2))Z"
  }
}
