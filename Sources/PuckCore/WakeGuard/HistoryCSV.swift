/// `puckctl history --csv`: one row per history entry, RFC 4180 (comma-separated, a field with a
/// comma, quote or line break in double quotes, quotes doubled), times in ISO 8601 with the
/// dock's offset. A label that begins like a spreadsheet formula (`=`, `+`, `-`, `@`) gets a
/// leading apostrophe, so opening the export cannot run anything (docs/DESIGN.md C8).
public enum HistoryCSV {
  /// The first line.
  public static let header =
    "alarm_id,alarm,label,scheduled_at,first_ring,ended_at,outcome,seconds_to_end,bypasses,rings,puck,reader"

  /// The row of `entry`, its instants written in `zone`.
  public static func row(_ entry: HistoryEntry, zone: ZoneRules) -> String {
    func time(_ instant: Instant?) -> String {
      instant.map { Instant.iso8601(unixSeconds: $0.unixSeconds, offset: zone.offset(at: $0)) } ?? ""
    }
    let occurrence = entry.occurrence
    let seconds = entry.openedAt.map { String(max(0, entry.closedAt.seconds(since: $0))) } ?? ""
    return [
      String(occurrence.alarmID), occurrence.time.description, field(occurrence.label),
      time(occurrence.scheduledAt),
      time(entry.openedAt), time(entry.closedAt), entry.outcome.rawValue, seconds, String(entry.bypassCount),
      String(entry.rings), field(entry.puck ?? ""), field(entry.reader ?? ""),
    ].joined(separator: ",")
  }

  /// A text field, quoted when it must be, defused when it looks like a formula. Both look at
  /// Unicode scalars, not characters: `=` followed by a combining mark or a joiner is one
  /// character that is not `=`, yet a spreadsheet still reads a formula.
  static func field(_ text: String) -> String {
    var value = text
    if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) {
      value = "'" + value
    }
    guard value.unicodeScalars.contains(where: { ",\"\n\r".unicodeScalars.contains($0) }) else {
      return value
    }
    return "\"" + value.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"")
      + "\""
  }
}
