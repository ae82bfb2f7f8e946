/// Where the config, state and control socket live by default (docs/DESIGN.md D11): system paths for
/// root, XDG paths for a normal user (development). Shared by `puckd` and `puckctl`.
public struct StandardPaths: Hashable, Sendable {
  public var config: String
  public var stateDirectory: String
  public var socket: String

  /// The paths for a process with this environment and privilege.
  public init(environment: [String: String], isRoot: Bool) {
    if isRoot {
      config = "/etc/puckalarm/puckd.conf"
      stateDirectory = "/var/lib/puckalarm"
      socket = "/run/puckalarm/puckd.sock"
      return
    }
    func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    let home = variable("HOME") ?? "/tmp"
    config = (variable("XDG_CONFIG_HOME") ?? home + "/.config") + "/puckalarm/puckd.conf"
    stateDirectory = (variable("XDG_STATE_HOME") ?? home + "/.local/state") + "/puckalarm"
    // Without a runtime directory (su, runuser, cron), a folder of the user's own, not a name
    // in /tmp that another user could take first and answer in the daemon's place. (HOME comes
    // from the passwd entry when unset: `withHome` in PuckSystem, which puckd and puckctl use.)
    let runtime = variable("XDG_RUNTIME_DIR") ?? home + "/.cache"
    socket = runtime + "/puckalarm/puckd.sock"
  }
}
