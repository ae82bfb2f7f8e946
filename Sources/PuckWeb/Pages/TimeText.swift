import PuckCore

/// Times as the pages show them: in the dock's zone (not the phone's), with how far away.
public struct TimeText: Sendable {
  public let zone: ZoneRules
  public let now: Instant

  public init(zone: ZoneRules, now: Instant) {
    self.zone = zone
    self.now = now
  }

  /// `Mon 30 Mar, 06:30`; the seconds only when they are not zero (a rehearsal alarm).
  public func local(_ instant: Instant) -> String {
    let local = zone.localDateTime(at: instant)
    let seconds = local.secondsOfDay
    let clock =
      seconds % 60 == 0
      ? String(WallTime.clockText(secondsOfDay: seconds).prefix(5))
      : WallTime.clockText(secondsOfDay: seconds)
    return "\(local.date.weekday) \(local.date.day) \(Self.months[local.date.month - 1]), \(clock)"
  }

  /// `in 7 h 12 min`, `in 40 s`, `now`.
  public func relative(_ instant: Instant) -> String {
    let seconds = instant.seconds(since: now)
    if seconds <= 0 { return "now" }
    if seconds < 60 { return "in \(seconds) s" }
    let minutes = (seconds + 59) / 60
    if minutes < 60 { return "in \(minutes) min" }
    if minutes < 48 * 60 { return "in \(minutes / 60) h \(minutes % 60) min" }
    return "in \(minutes / (24 * 60)) days"
  }

  /// `Mon 30 Mar 2026`.
  public static func date(_ date: LocalDate) -> String {
    "\(date.weekday) \(date.day) \(months[date.month - 1]) \(date.year)"
  }

  static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
