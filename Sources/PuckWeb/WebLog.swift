import PuckSystem

/// puck-web's log: one line on stderr with the `<N>` syslog-level prefix journald reads
/// (the line's text carries its own prefix: `<4>puck-web: wrong password from …`).
public enum WebLog {
  /// Writes `line`, newlines inside it flattened so each entry stays one line.
  @Sendable public static func write(_ line: String) {
    let flat = String(line.map { $0.isNewline ? " " : $0 }) + "\n"
    // Logging never fails the caller: a closed or full stderr loses the line, nothing more.
    try? writeAll(Array(flat.utf8), to: 2)
  }
}
