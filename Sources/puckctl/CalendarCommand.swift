import PuckCore
import PuckStorage

/// `puckctl calendar`: the next fire instants of an alarm time, offline, like
/// `systemd-analyze calendar`. Needs no daemon.
enum CalendarCommand {
  static let usage = """
    usage: puckctl calendar HH:MM[:SS] [--days mon,tue,...|weekdays|weekends|daily | --date YYYY-MM-DD]
                            [--tz ZONE] [--after ISO8601] [--count N] [--json]

    Prints when an alarm at HH:MM would fire: local time, weekday and UTC, one per line.
    Daylight saving follows RFC 5545: a time inside a spring-forward gap fires after the gap
    (02:30 in a 02:00→03:00 gap fires at 03:30), a time that occurs twice fires once, the first time.

      --days      repeating days (default: daily)
      --date      one day only: YYYY-MM-DD, today or tomorrow
      --tz        IANA zone such as Europe/Bucharest (default: the system zone)
      --after     start after this instant: 2026-03-29T00:00:00+02:00, or a local
                  2026-03-29T00:00 / 2026-03-29 in --tz (default: now)
      --count     how many fires to print, 1-1000 (default: 1)
      --json      print a JSON array of {"local": ..., "utc": ...} objects, nothing else
    """

  static func run(_ arguments: [String], now: Instant, zones: ZoneInfoDirectory) throws -> String {
    let args = try ArgumentList(
      arguments, valued: ["days", "date", "tz", "after", "count"], switches: ["json", "help"])
    if args.flag("help") { return usage }
    try args.expectPositionals(1, "the alarm time HH:MM")
    let time = try WallTime(parsing: args.positionals[0])

    let zone: ZoneRules
    if let name = args.value("tz") {
      zone = try zones.zone(named: name)
    } else {
      zone = try zones.systemZone()
    }

    let recurrence: Recurrence
    switch (args.value("days"), args.value("date")) {
    case (.some, .some): throw ScheduleInputError.daysAndDate
    case (nil, let date?): recurrence = .once(try parseDate(date, now: now, zone: zone))
    case (let days, nil): recurrence = .weekly(try Weekday.parseSet(days ?? "daily"))
    }

    var after = now
    if let text = args.value("after") {
      guard let parsed = parseInstant(text, zone: zone) else {
        throw UsageError(
          "'\(text)' is not an instant: use 2026-03-29T00:00:00+02:00, 2026-03-29T00:00 or 2026-03-29")
      }
      // Fires are strictly after the instant; start a second earlier so that `--after` equal to
      // a fire time includes it, as `systemd-analyze calendar --base-time` does.
      after = parsed.adding(seconds: -1)
    }

    var count = 1
    if let text = args.value("count") {
      guard let parsed = Int(text), (1...1000).contains(parsed) else {
        throw UsageError("--count takes a whole number from 1 to 1000, not '\(text)'")
      }
      count = parsed
    }

    let fires = Schedule.fires(time: time, recurrence: recurrence, after: after, in: zone, count: count)
    if args.flag("json") {
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

  private static func parseDate(_ text: String, now: Instant, zone: ZoneRules) throws -> LocalDate {
    let today = zone.localDateTime(at: now).date
    switch text.lowercased() {
    case "today": return today
    case "tomorrow": return today.adding(days: 1)
    default: return try LocalDate(parsing: text)
    }
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
