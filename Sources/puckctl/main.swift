import FoundationEssentials
import Glibc
import PuckClient
import PuckCore
import PuckStorage
import PuckSystem

/// `puckctl`: the command-line client of `puckd` (and the offline `calendar`).
enum PuckCtl {
  /// `puckctl --help`: the daemon commands come from the command table, so a command added
  /// there is listed here without a second edit.
  static let usage =
    ([
      "usage: puckctl [--socket PATH] COMMAND [ARGS]",
      "(the socket defaults to $PUCK_SOCKET, else your own $XDG_RUNTIME_DIR/puckalarm/puckd.sock",
      "($HOME/.cache/puckalarm/puckd.sock without it) when it exists, else the system daemon's",
      "/run/puckalarm/puckd.sock)",
      "",
      "Commands:",
    ] + CommandTable.listing + [
      "",
      "Run 'puckctl COMMAND --help' for a command's options; 'puckctl --version' for the version.",
      "Exit codes: 0 ok, 1 not protected or failed, 2 refused, 3 nothing to do, 64 usage,",
      "69 daemon not reachable, 77 permission denied.",
    ]).joined(separator: "\n")

  static func main() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    let environment = withHome(ProcessInfo.processInfo.environment)
    // --socket, else $PUCK_SOCKET (handy for the demo), else the standard path.
    var socketPath =
      environment["PUCK_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultSocket(environment)
    if arguments.first?.hasPrefix("--socket=") == true {
      socketPath = String(arguments.removeFirst().dropFirst("--socket=".count))
    } else if arguments.first == "--socket" {
      guard arguments.count >= 2 else {
        printError("puckctl: --socket needs a path")
        return ExitCode.usage.rawValue
      }
      socketPath = arguments[1]
      arguments.removeFirst(2)
    }
    guard let word = arguments.first else {
      printError(usage)
      return ExitCode.usage.rawValue
    }
    let now = Instant(unixSeconds: Int64(Date().timeIntervalSince1970.rounded(.down)))
    let zones = ZoneInfoDirectory(environment: environment)
    do {
      switch word {
      case "--help", "-h", "help":
        print(usage)
        return ExitCode.success.rawValue
      case "--version":
        print("puckctl \(ProductVersion.current)")
        return ExitCode.success.rawValue
      default: break
      }
      if arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
        guard let help = CommandTable.help(for: word) else {
          throw UsageError("unknown command '\(word)' (see puckctl --help)")
        }
        print(help)
        return ExitCode.success.rawValue
      }
      let request = try ControlRequest(commandLine: arguments, standardInput: { readLine() })
      switch request.name {
      case .calendar: print(try CalendarCommand.run(request, now: now, zones: zones))
      case .completion: print(ShellCompletion.script(for: request.text(.shell) ?? ""), terminator: "")
      case .webPassword: return try WebPasswordCommand(request: request).run().rawValue
      default:
        let client = DaemonClient(socketPath: socketPath)
        let zone = (try? zones.systemZone()) ?? .utc
        switch request.name {
        case .setup:
          let config =
            request.text(.config) ?? StandardPaths(environment: environment, isRoot: geteuid() == 0).config
          let setup = SetupCommand(request: request, client: client, zone: zone, now: now)
          return try setup.run(configPath: config).rawValue
        default: return try ClientCommands(client: client, zone: zone, now: now).run(request).rawValue
        }
      }
      return ExitCode.success.rawValue
    } catch let failure as ControlFailure {
      printError("puckctl: \(failure.message)")
      return ExitCode(failure.kind).rawValue
    } catch let error as UsageError {
      printError("puckctl: \(error.message)")
      return ExitCode.usage.rawValue
    } catch let error as ZoneLookupError {
      printError("puckctl: \(error)")
      return ExitCode.usage.rawValue
    } catch ClientError.notRunning(let path) {
      printError(
        "puckctl: puckd is not running (no answer on \(path)) — start it with: sudo systemctl start puckd")
      return ExitCode.unreachable.rawValue
    } catch ClientError.noAccess(let path) {
      printError("puckctl: no access to \(path) — run with sudo, or join the puckalarm group")
      return ExitCode.permissionDenied.rawValue
    } catch ClientError.broken(let reason) {
      printError("puckctl: \(reason)")
      return ExitCode.unreachable.rawValue
    } catch {
      printError("puckctl: \(error)")
      return ExitCode.failure.rawValue
    }
  }

  /// Root talks to the system daemon. Anyone else talks to their own development daemon when one
  /// is running, else to the system daemon (a `puckalarm` member on an installed dock).
  static func defaultSocket(_ environment: [String: String]) -> String {
    let system = StandardPaths(environment: environment, isRoot: true).socket
    guard geteuid() != 0 else { return system }
    let own = StandardPaths(environment: environment, isRoot: false).socket
    if access(own, F_OK) != 0 && access(system, F_OK) == 0 { return system }
    return own
  }

  static func printError(_ message: String) {
    // A closed stderr loses the message; the exit code still tells.
    try? writeAll(Array((message + "\n").utf8), to: 2)
  }
}

exit(PuckCtl.main())
