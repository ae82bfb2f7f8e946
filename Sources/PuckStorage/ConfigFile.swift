import PuckCore

/// Reading `puckd.conf` from disk; the parsing itself is `DockConfig.parse` in PuckCore.
public enum ConfigFile {
  /// Where puckd looks when `--config` is not given.
  public static let defaultPath = "/etc/puckalarm/puckd.conf"

  /// The configuration in the file at `path`; all defaults when the file does not exist
  /// (every key is optional, and so is the file). Errors name the path as given.
  public static func load(_ path: String) throws(ConfigFileError) -> DockConfig {
    let bytes: [UInt8]?
    do {
      bytes = try DurableFile.read(path)
    } catch {
      throw .unreadable(error)
    }
    guard let bytes else { return DockConfig.defaults }
    do {
      return try DockConfig.parse(String(decoding: bytes, as: UTF8.self), file: path)
    } catch {
      throw .invalid(error)
    }
  }
}

/// Why the config file could not be used.
public enum ConfigFileError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The file exists but could not be read (permissions, I/O error, a directory).
  case unreadable(FileSystemError)
  /// The file was read but a line is wrong.
  case invalid(ConfigError)

  /// `/etc/puckalarm/puckd.conf:12: retry_delay = 2s is below the minimum 5s`.
  public var description: String {
    switch self {
    case .unreadable(let error): return error.description
    case .invalid(let error): return error.description
    }
  }
}
