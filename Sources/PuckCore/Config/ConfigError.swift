/// Why `puckd.conf` was rejected, and where: `puckd.conf:12: retry_delay = 2s is below the
/// minimum 5s`.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The file as the caller named it (a path, or `puckd.conf`).
  public var file: String
  /// The 1-based line the problem is on.
  public var line: Int
  /// What is wrong with that line.
  public var reason: Reason

  /// `puckd.conf:12: retry_delay = 2s is below the minimum 5s`.
  public var description: String {
    "\(file):\(line): \(reason)"
  }

  /// What is wrong with a line.
  public enum Reason: Hashable, Sendable, CustomStringConvertible {
    /// A `[section]` header that is not one of the known sections.
    case unknownSection(String)
    /// A key its section does not have.
    case unknownKey(section: String, key: String)
    /// A known key with a value it does not accept.
    case badValue(key: String, value: String, problem: ValueProblem)
    /// A key set a second time; `firstLine` is where it was set first.
    case duplicateKey(section: String, key: String, firstLine: Int)
    /// A `key = value` line before any `[section]` header.
    case keyOutsideSection(key: String)
    /// A line that is none of: blank, comment, `[section]`, `key = value`.
    case malformedLine(String)

    /// The reason as a sentence fragment after `file:line: `.
    public var description: String {
      switch self {
      case .unknownSection(let name):
        return "unknown section [\(name)]; the sections are "
          + DockConfig.sections.map { "[\($0.name)]" }.joined(separator: ", ")
      case .unknownKey(let section, let key):
        let known = DockConfig.section(named: section)?.keys.map(\.name).joined(separator: ", ") ?? ""
        return "unknown key '\(key)' in [\(section)]; the keys there are \(known)"
      case .badValue(let key, let value, let problem):
        if value.isEmpty { return "\(key) has no value: \(problem.expected)" }
        return "\(key) = \(value) \(problem)"
      case .duplicateKey(let section, let key, let firstLine):
        return "\(key) in [\(section)] is already set on line \(firstLine); keep only one"
      case .keyOutsideSection(let key):
        let home = DockConfig.sections.first { $0.keys.contains { $0.name == key } }
        return "\(key) comes before any [section] header; put it under its section"
          + (home.map { " like [\($0.name)]" } ?? "")
      case .malformedLine(let text):
        return "'\(text)' is not a setting: expected 'key = value', a [section] header or a # comment"
      }
    }
  }
}

/// Why a value was not accepted; each case knows what would have been.
public enum ValueProblem: Error, Hashable, Sendable, CustomStringConvertible {
  /// Not a duration.
  case notADuration
  /// Not a percentage.
  case notAPercentage
  /// Not a yes/no word.
  case notABoolean
  /// Not a GPIO line offset or name.
  case notALine
  /// Not an absolute file path.
  case notAnAbsolutePath
  /// Not a TCP port (1 to 65535).
  case notAPort
  /// Not a name of 1 to 32 lower-case letters, digits, `-` and `_`.
  case notAName
  /// Not a whole number.
  case notANumber
  /// Not `all` nor an IP address.
  case notAnAddress
  /// Not a list of host names.
  case notAHostName
  /// Empty where a value is required; the associated text says what kind.
  case missing(String)
  /// Below the smallest accepted value, which is given as written in the file.
  case belowMinimum(String)
  /// Above the largest accepted value, which is given as written in the file.
  case aboveMaximum(String)

  /// What the key accepts, for messages.
  public var expected: String {
    switch self {
    case .notADuration:
      return "expected a whole number with a unit, like 500ms, 60s, 10min, 1h or 1min 30s"
    case .notAPercentage: return "expected a percentage from 0% to 100%, like 30%"
    case .notABoolean: return "expected yes or no (also true/false, on/off, 1/0)"
    case .notALine: return "expected a line offset like 22 or a line name like GPIO22"
    case .notAnAbsolutePath:
      return "expected an absolute path like /home/pi/alarm.flac, or nothing for the built-in tone"
    case .notAPort: return "expected a port from 1 to 65535, like 1883"
    case .notAName: return "expected 1 to 32 lower-case letters, digits, - or _, like bedroom"
    case .notANumber: return "expected a whole number, like 1"
    case .notAnAddress: return "expected all, or an IP address of this dock like 192.168.1.20 or ::1"
    case .notAHostName:
      return
        "expected host names separated by spaces, like puck.lan puck.fritz.box (letters, digits, - and .)"
    case .missing(let kind): return "expected \(kind)"
    case .belowMinimum(let minimum): return "expected at least \(minimum)"
    case .aboveMaximum(let maximum): return "expected at most \(maximum)"
    }
  }

  /// The problem as it follows `key = value` in a message.
  public var description: String {
    switch self {
    case .notADuration: return "is not a duration: \(expected)"
    case .notAPercentage: return "is not a volume: \(expected)"
    case .notABoolean: return "is not yes or no: \(expected)"
    case .notALine: return "is not a GPIO line: \(expected)"
    case .notAnAbsolutePath: return "is not an absolute path: \(expected)"
    case .notAPort: return "is not a port: \(expected)"
    case .notAName: return "is not a name: \(expected)"
    case .notANumber: return "is not a number: \(expected)"
    case .notAnAddress: return "is not an address: \(expected)"
    case .notAHostName: return "is not a list of host names: \(expected)"
    case .missing: return "is empty: \(expected)"
    case .belowMinimum(let minimum): return "is below the minimum \(minimum)"
    case .aboveMaximum(let maximum): return "is above the maximum \(maximum)"
    }
  }
}
