import Glibc
import PuckSystem

/// Logs to stderr with the `<N>` syslog-level prefixes journald reads. UIDs are logged masked
/// (`TagUID.masked`) by the callers; nothing here sees a whole UID.
public enum Log {
  /// syslog levels used by the daemon.
  public enum Level: Int {
    /// A wake-up that nobody can hear: the worst the dock can do short of crashing.
    case critical = 2
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7
  }

  /// Writes one line (newlines inside the message are flattened so each entry stays one line).
  public static func write(_ level: Level, _ message: String) {
    let line = "<\(level.rawValue)>" + message.replacingNewlines() + "\n"
    let bytes = Array(line.utf8)
    // Logging never fails the caller: a closed or full stderr loses the line, nothing more.
    try? writeAll(bytes, to: 2)
  }

  public static func critical(_ message: String) { write(.critical, message) }
  public static func error(_ message: String) { write(.error, message) }
  public static func warning(_ message: String) { write(.warning, message) }
  public static func notice(_ message: String) { write(.notice, message) }
  public static func info(_ message: String) { write(.info, message) }
}

extension String {
  fileprivate func replacingNewlines() -> String {
    String(map { $0.isNewline ? " " : $0 })
  }
}
