import PuckCore

/// The documented exit codes of `puckctl` (README "Exit codes"), in one place.
enum ExitCode: Int32 {
  /// It worked.
  case success = 0
  /// `status`: the dock is not protected; other commands: the operation did not succeed
  /// (a pairing that timed out, a rehearsal that found a fault).
  case failure = 1
  /// The daemon understood and refused by policy (pairing while a guard is open, a simulated
  /// scan sent to a daemon with a real reader).
  case refused = 2
  /// The command found nothing to do: `stop` with nothing ringing, `override` with no wake-up
  /// open. A script tells it from a success that changed something.
  case nothingToDo = 3
  /// Bad command line: unknown command or option, bad time, day, date, zone or UID (EX_USAGE).
  case usage = 64
  /// `puckd` is not running or its socket cannot be reached (EX_UNAVAILABLE).
  case unreachable = 69
  /// The command needs root or the `puckalarm` group (EX_NOPERM).
  case permissionDenied = 77
}

extension ExitCode {
  /// The code for a failure puckd (or the command line's own check) reported.
  init(_ kind: ControlFailure.Kind) {
    switch kind {
    case .badRequest: self = .usage
    case .permissionDenied: self = .permissionDenied
    case .refused: self = .refused
    case .failed, .notFound: self = .failure
    }
  }
}

/// A command-line mistake: printed as one line on stderr, exit code 64.
struct UsageError: Error {
  let message: String

  init(_ message: String) {
    self.message = message
  }
}
