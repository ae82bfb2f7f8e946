import PuckCore
import PuckStorage

/// `puckctl calendar`: the next fire instants of an alarm time, offline, like
/// `systemd-analyze calendar`. Needs no daemon.
enum CalendarCommand {
  static func run(_ request: ControlRequest, now: Instant, zones: ZoneInfoDirectory) throws -> String {
    guard let time = request.time else { throw UsageError("missing the alarm time HH:MM") }
    let zone = try request.text(.tz).map(zones.zone(named:)) ?? zones.systemZone()
    // Every day unless --days or --date says otherwise; today and tomorrow are this zone's.
    let recurrence = (request.recurrence ?? .weekly(Set(Weekday.allCases))).resolved(
      time: time, now: now, in: zone)

    var after = now
    if let text = request.text(.after) {
      guard let parsed = parseInstant(text, zone: zone) else {
        throw UsageError(
          "'\(text)' is not an instant: use 2026-03-29T00:00:00+02:00, 2026-03-29T00:00 or 2026-03-29")
      }
      // Fires are strictly after the instant; start a second earlier so that `--after` equal to
      // a fire time includes it, as `systemd-analyze calendar --base-time` does.
      after = parsed.adding(seconds: -1)
    }

    let count = request.integer(.count) ?? 1
    let fires = Schedule.fires(time: time, recurrence: recurrence, after: after, in: zone, count: count)
    if request.flag(.json) {
      let objects = fires.map { fire in
        let local = Instant.iso8601(unixSeconds: fire.unixSeconds, offset: zone.offset(at: fire))
        return "  {\"local\": \"\(local)\", \"utc\": \"\(fire)\"}"
      }
      return objects.isEmpty ? "[]" : "[\n" + objects.joined(separator: ",\n") + "\n]"
    }
    if fires.isEmpty {
      return
        "no fire after \(Instant.iso8601(unixSeconds: after.unixSeconds + 1, offset: zone.offset(at: after)))"
    }
    return fires.map { describe($0, requested: time, zone: zone) }.joined(separator: "\n")
  }

  /// `Mon 2026-03-30 06:30:00 EEST (+03:00)  =  2026-03-30 03:30:00 UTC`, with a note when DST
  /// moved the fire away from the requested wall-clock time.
  private static func describe(_ fire: Instant, requested: WallTime, zone: ZoneRules) -> String {
    let local = zone.localDateTime(at: fire)
    let seconds = local.secondsOfDay
    let utc = fire.utcDateAndTime
    var line =
      "\(zone.describe(fire)) \(zone.abbreviation(at: fire)) "
      + "(\(Instant.formatOffset(local.offset)))  =  \(utc.date) \(WallTime.clockText(secondsOfDay: utc.secondsOfDay)) UTC"
    if seconds != requested.secondsOfDay {
      line += "  (\(requested) does not exist that day: daylight saving gap)"
    }
    return line
  }

  /// An ISO 8601 instant with an offset, or a local date-time / date in `zone`.
  private static func parseInstant(_ text: String, zone: ZoneRules) -> Instant? {
    if let instant = Instant(iso8601: text) { return instant }
    let parts = text.split(whereSeparator: { $0 == "T" || $0 == " " }).map(String.init)
    guard (1...2).contains(parts.count), let date = try? LocalDate(parsing: parts[0]) else { return nil }
    let time = parts.count == 2 ? try? WallTime(parsing: parts[1]) : WallTime(hour: 0, minute: 0)
    guard let time else { return nil }
    return zone.instant(for: date, at: time)
  }
}
