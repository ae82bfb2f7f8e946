import Glibc

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

  /// PRODUCT §6 defaults: system paths for root, XDG paths for a normal user (development).
  public static func defaults(environment: [String: String], isRoot: Bool = geteuid() == 0) -> DaemonOptions {
    if isRoot {
      return DaemonOptions(
        configPath: "/etc/puckalarm/puckd.conf", stateDirectory: "/var/lib/puckalarm",
        socketPath: "/run/puckalarm/puckd.sock", simulate: false)
    }
    let home = environment["HOME"] ?? "/tmp"
    let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
    let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/state"
    let runtime =
      environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp/puckalarm-\(geteuid())"
    return DaemonOptions(
      configPath: config + "/puckalarm/puckd.conf", stateDirectory: state + "/puckalarm",
      socketPath: runtime + "/puckalarm/puckd.sock", simulate: false)
  }
}
