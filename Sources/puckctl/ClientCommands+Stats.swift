import FoundationEssentials
import PuckClient
import PuckCore

extension ClientCommands {
  /// `puckctl stats`: the streak, the time it takes to get up per weekday and the bypasses per
  /// week (`WakeStats`), computed here from the history the daemon pages out, so it costs the
  /// daemon no more than `history` does (docs/DESIGN.md C8).
  func stats(_ request: ControlRequest) throws -> ExitCode {
    let weeks = request.integer(.weeks) ?? 12
    let since = now.adding(seconds: -Int64(weeks) * 7 * 86_400)
    let entries = try historyEntries(since: since)
    let figures = WakeStats(entries: entries, zone: zone)
    if request.flag(.json) {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      print(String(decoding: try encoder.encode(figures), as: UTF8.self))
    } else {
      print(statsText(figures, weeks: weeks))
    }
    return .success
  }

  private func statsText(_ stats: WakeStats, weeks: Int) -> String {
    var lines = ["Last \(weeks) week\(weeks == 1 ? "" : "s"):"]
    lines.append(
      "Streak:   \(stats.streak) wake-up\(stats.streak == 1 ? "" : "s") in a row ended with the puck "
        + "(longest \(stats.longestStreak))")
    lines.append(
      "Endings:  \(stats.scans) scanned, \(stats.stopped) stopped (no puck needed), \(stats.overrides) overridden, "
        + "\(stats.missed) missed; \(stats.bypasses) bypass\(stats.bypasses == 1 ? "" : "es")")
    lines.append("Getting up (first ring to scan, median):")
    for day in stats.byWeekday {
      let median = day.medianSecondsToGetUp.map(HistoryEntry.minutes) ?? "—"
      let column = median + String(repeating: " ", count: max(1, 12 - median.count))
      lines.append("  \(day.weekday)  \(column)(\(day.scans) scan\(day.scans == 1 ? "" : "s"))")
    }
    lines.append("Per week (from Monday): wake-ups, bypasses, overrides, missed")
    for week in stats.byWeek {
      lines.append("  \(week.weekOf)  \(week.wakeUps)  \(week.bypasses)  \(week.overrides)  \(week.missed)")
    }
    if stats.byWeek.isEmpty { lines.append("  no wake-ups yet") }
    return lines.joined(separator: "\n")
  }
}

extension ClientCommands {
  /// Every history entry closed at or after `since` (nil: all), from the newest or from
  /// `before`, oldest first (`HistoryPages`); a refused page ends it with its message.
  func historyEntries(since: Instant?, before: Int? = nil) throws -> [HistoryEntry] {
    try HistoryPages.entries(since: since, before: before) { request in
      let reply = try client.send(request)
      guard reply.ok == true else {
        throw ClientError.broken(reply.failure?.message ?? reply.message ?? "history could not be read")
      }
      return reply
    }
  }
}
