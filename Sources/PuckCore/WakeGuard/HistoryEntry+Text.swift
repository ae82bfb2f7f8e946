extension HistoryEntry {
  /// How the wake-up ended, for a person, as `puckctl history` and the web app's history page
  /// show it: `woke with the puck primary (…:33:44) on dock, 11 min 12 s after the first ring;
  /// 2 bypasses`. `firstRing` follows "after the first ring" (puckctl adds the ring's clock
  /// time, ` (06:30:00)`).
  public func ending(firstRing: String = "") -> String {
    let bypasses = "\(bypassCount) bypass\(bypassCount == 1 ? "" : "es")"
    let took = openedAt.map { opened in
      ", \(Self.minutes(Int(max(0, closedAt.seconds(since: opened))))) after the first ring\(firstRing)"
    }
    switch outcome {
    case .woke:
      let puck = puck.map { " \($0)" } ?? ""
      let reader = reader.map { " on \($0)" } ?? ""
      return "woke with the puck\(puck)\(reader)\(took ?? ""); \(bypasses)"
    case .stopped: return "stopped (no puck needed)\(took ?? ""); \(bypasses)"
    case .overridden: return "OVERRIDDEN without a scan\(took ?? ""); \(bypasses)"
    case .upEarly:
      let puck = puck.map { " \($0)" } ?? ""
      let reader = reader.map { " on \($0)" } ?? ""
      return "up before the alarm: the puck\(puck) was scanned\(reader) before it rang"
    case .missed: return "MISSED (the dock was down)"
    case .awake: return "the wake-up check was answered: up"
    case .reopened: return "NO ANSWER to the wake-up check: the wake-up opened again"
    }
  }

  /// A length of time for a person: `7 min 05 s`, `45 s`.
  public static func minutes(_ seconds: Int) -> String {
    seconds < 60 ? "\(seconds) s" : "\(seconds / 60) min \(seconds % 60 < 10 ? "0" : "")\(seconds % 60) s"
  }
}
