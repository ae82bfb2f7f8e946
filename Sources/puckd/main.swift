import FoundationEssentials
import Glibc
import PuckCore
import PuckDaemon

/// `puckd`: the PuckAlarm daemon, in the foreground (systemd runs it as Type=notify).
enum PuckD {
  static let usage = """
    usage: puckd [--config PATH] [--state-dir DIR] [--socket PATH] [--simulate]
           puckd [--config PATH] --check-config | --buzzer-off
           puckd --version

    Runs the PuckAlarm daemon in the foreground: schedules alarms, rings, and keeps every
    wake-up open until the paired tag is scanned. Logs go to stderr with <N> syslog prefixes.

      --config PATH    config file (default /etc/puckalarm/puckd.conf as root,
                       $XDG_CONFIG_HOME/puckalarm/puckd.conf otherwise); missing = defaults
      --state-dir DIR  alarms, wake-ups, history, pairing (default /var/lib/puckalarm as root,
                       $XDG_STATE_HOME/puckalarm otherwise)
      --socket PATH    control socket (default /run/puckalarm/puckd.sock as root,
                       $XDG_RUNTIME_DIR/puckalarm/puckd.sock otherwise)
      --simulate       no reader: scans come from 'puckctl scan UID'. The dock is NOT protected.
      --check-config   check the config file (file:line: reason on errors; exit 78) and exit
      --buzzer-off     drive the configured buzzer line off and exit (systemd ExecStopPost=)
      --version        print the version and exit

    Signals: SIGTERM/SIGINT stop cleanly (open wake-ups stay open on disk), SIGHUP reloads the config.
    """

  static func main() -> Int32 {
    let environment = ProcessInfo.processInfo.environment
    var options = DaemonOptions.defaults(environment: environment)
    var job: String?
    var arguments = Array(CommandLine.arguments.dropFirst()).makeIterator()
    while let argument = arguments.next() {
      func value() -> String? {
        if let equals = argument.firstIndex(of: "=") {
          return String(argument[argument.index(after: equals)...])
        }
        return arguments.next()
      }
      let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
      switch name {
      case "--version":
        print("puckd \(ProductVersion.current)")
        return DaemonExitCode.success.rawValue
      case "--help", "-h":
        print(usage)
        return DaemonExitCode.success.rawValue
      case "--simulate":
        options.simulate = true
      case "--check-config", "--buzzer-off":
        job = name
      case "--config", "--state-dir", "--socket":
        guard let path = value(), !path.isEmpty else {
          Log.error("puckd: \(name) needs a path")
          return DaemonExitCode.usage.rawValue
        }
        switch name {
        case "--config": options.configPath = path
        case "--state-dir": options.stateDirectory = path
        default: options.socketPath = path
        }
      default:
        Log.error("puckd: unknown argument '\(argument)' (see puckd --help)")
        return DaemonExitCode.usage.rawValue
      }
    }
    switch job {
    case "--check-config": return Maintenance.checkConfig(path: options.configPath).rawValue
    case "--buzzer-off": return Maintenance.buzzerOff(configPath: options.configPath).rawValue
    default: break
    }
    do {
      let daemon = try Daemon(options: options, environment: environment)
      return try daemon.run()
    } catch {
      Log.error("puckd cannot start: \(error)")
      return DaemonExitCode.failure.rawValue
    }
  }
}

exit(PuckD.main())
