import Glibc
import PuckCore
import PuckSystem

/// How `puckd` was asked to run: paths and mode.
public struct DaemonOptions: Sendable {
  /// The config file; a missing file means all defaults.
  public var configPath: String
  /// The state directory (alarms, guards, history, pairing).
  public var stateDirectory: String
  /// The control socket.
  public var socketPath: String
  /// No reader: scans come from `puckctl scan`. Never switched on by itself.
  public var simulate: Bool

  public init(configPath: String, stateDirectory: String, socketPath: String, simulate: Bool) {
    self.configPath = configPath
    self.stateDirectory = stateDirectory
    self.socketPath = socketPath
    self.simulate = simulate
  }

  /// Defaults (docs/DESIGN.md D11): system paths for root, XDG paths for a normal user (development).
  public static func defaults(environment: [String: String], isRoot: Bool = geteuid() == 0) -> DaemonOptions {
    let paths = StandardPaths(environment: withHome(environment), isRoot: isRoot)
    return DaemonOptions(
      configPath: paths.config, stateDirectory: paths.stateDirectory, socketPath: paths.socket,
      simulate: false)
  }
}
