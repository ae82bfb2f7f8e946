import Foundation
import PuckCore
import PuckStorage

/// `puckctl`: the command-line client of `puckd` (and the offline `calendar`).
enum PuckCtl {
  static let usage = """
    usage: puckctl [--socket PATH] COMMAND [ARGS]

    Commands:
      calendar HH:MM [...]   when an alarm would fire (offline, no daemon needed)

    Run 'puckctl COMMAND --help' for a command's options; 'puckctl --version' for the version.
    Exit codes: 0 ok, 1 not protected or failed, 2 refused, 64 usage, 69 daemon not reachable,
    77 permission denied.
    """

  static func main() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard let command = arguments.first else {
      printError(usage)
      return ExitCode.usage.rawValue
    }
    arguments.removeFirst()
    do {
      switch command {
      case "--help", "-h", "help":
        print(usage)
      case "--version":
        print("puckctl \(ProductVersion.current)")
      case "calendar":
        let now = Instant(unixSeconds: Int64(Date().timeIntervalSince1970.rounded(.down)))
        print(try CalendarCommand.run(arguments, now: now, zones: ZoneInfoDirectory()))
      default:
        throw UsageError("unknown command '\(command)' (see puckctl --help)")
      }
      return ExitCode.success.rawValue
    } catch let error as UsageError {
      printError("puckctl: \(error.message)")
      return ExitCode.usage.rawValue
    } catch let error as ScheduleInputError {
      printError("puckctl: \(error)")
      return ExitCode.usage.rawValue
    } catch let error as ZoneLookupError {
      printError("puckctl: \(error)")
      return ExitCode.usage.rawValue
    } catch {
      printError("puckctl: \(error)")
      return ExitCode.failure.rawValue
    }
  }

  static func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }
}

exit(PuckCtl.main())
