import FoundationEssentials
import PuckCore

/// The system's time-zone database, read at run time so that an updated tzdata package takes
/// effect without a rebuild (Foundation's `TimeZone` on Linux answers from ICU data frozen into
/// the toolchain, so it is deliberately not used).
///
/// Zone files come from `$TZDIR` when set, else `/usr/share/zoneinfo`; the system zone from `$TZ`
/// (a zone name, `:name`, an absolute file path, or a POSIX TZ rule) or else `/etc/localtime`.
public struct ZoneInfoDirectory: Sendable {
  /// The directory zone files are read from.
  public let root: String
  /// The file the system zone comes from when `$TZ` is unset.
  public let localtimePath: String
  /// The value of `$TZ`, nil when unset.
  public let tzVariable: String?

  /// The database as the environment describes it.
  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    let dir = environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 }
    self.init(
      root: dir ?? "/usr/share/zoneinfo", localtimePath: "/etc/localtime", tzVariable: environment["TZ"])
  }

  /// A database at explicit paths (tests).
  public init(root: String, localtimePath: String = "/etc/localtime", tzVariable: String? = nil) {
    self.root = root
    self.localtimePath = localtimePath
    self.tzVariable = tzVariable
  }

  /// The rules of an IANA zone such as `Europe/Bucharest`.
  public func zone(named name: String) throws(ZoneLookupError) -> ZoneRules {
    if name == "UTC" || name == "Etc/UTC" || name == "Z" {
      if let rules = try? load(path: root + "/" + name, name: name) { return rules }
      return .utc
    }
    // A zone name is a relative path of plain components; refuse anything that could wander
    // out of the database (`../`, absolute paths) or is not a name at all.
    let components = name.split(separator: "/", omittingEmptySubsequences: false)
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-")
    guard !name.isEmpty,
      components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && $0.allSatisfy(allowed.contains) })
    else { throw .unknownZone(name) }
    return try load(path: root + "/" + name, name: name)
  }

  /// The system zone: `$TZ` if set, else `/etc/localtime`, else UTC (as glibc does).
  public func systemZone() throws(ZoneLookupError) -> ZoneRules {
    if var value = tzVariable {
      if value.isEmpty { return .utc }
      if value.hasPrefix(":") { value.removeFirst() }
      if value.hasPrefix("/") { return try load(path: value, name: value) }
      if let rules = try? zone(named: value) { return rules }
      do {
        return try ZoneRules(posixTZ: value)
      } catch {
        throw .unknownZone(value)
      }
    }
    guard FileManager.default.fileExists(atPath: localtimePath) else { return .utc }
    return try load(path: localtimePath, name: systemZoneName() ?? "localtime")
  }

  /// The IANA name of the system zone when `/etc/localtime` is a link into a zoneinfo tree
  /// (`/usr/share/zoneinfo/Europe/Bucharest` → `Europe/Bucharest`).
  public func systemZoneName() -> String? {
    if let value = tzVariable, !value.isEmpty {
      return value.hasPrefix(":") ? String(value.dropFirst()) : value
    }
    guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: localtimePath),
      let range = target.firstRange(of: "zoneinfo/")
    else { return nil }
    return String(target[range.upperBound...])
  }

  private func load(path: String, name: String) throws(ZoneLookupError) -> ZoneRules {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw .unknownZone(name)
    }
    do {
      return try ZoneRules(tzif: [UInt8](data), name: name)
    } catch {
      throw .unreadable(name: name, path: path, reason: "\(error)")
    }
  }
}

/// Why a time zone could not be found or read.
public enum ZoneLookupError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No such zone in the database.
  case unknownZone(String)
  /// The zone file exists but is not a valid TZif file.
  case unreadable(name: String, path: String, reason: String)

  public var description: String {
    switch self {
    case .unknownZone(let name):
      return "unknown time zone '\(name)' (see timedatectl list-timezones or /usr/share/zoneinfo)"
    case .unreadable(let name, let path, let reason):
      return "time zone '\(name)' could not be read from \(path): \(reason) (reinstall tzdata?)"
    }
  }
}
