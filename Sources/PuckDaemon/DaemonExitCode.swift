/// The exit codes of `puckd` (man page puckd(8), "EXIT STATUS"), in one place, as puckctl's
/// `ExitCode` is; the values follow sysexits.h so systemd and scripts can tell them apart.
public enum DaemonExitCode: Int32, Sendable {
  /// A clean stop, or a maintenance job that found nothing wrong.
  case success = 0
  /// The daemon could not start, or `--buzzer-off` could not drive the line.
  case failure = 1
  /// Bad command line: an unknown argument or a missing path (EX_USAGE).
  case usage = 64
  /// The config file is wrong; `--check-config` names `file:line` (EX_CONFIG).
  case config = 78
}
