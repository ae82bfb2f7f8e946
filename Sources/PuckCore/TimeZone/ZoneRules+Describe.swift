extension ZoneRules {
  /// `Mon 2026-03-30 06:30:00`: an instant as local weekday, date and time, for people.
  public func describe(_ instant: Instant) -> String {
    let local = localDateTime(at: instant)
    return "\(local.date.weekday) \(local.date) \(WallTime.clockText(secondsOfDay: local.secondsOfDay))"
  }
}

extension WallTime {
  /// `06:30:00`, seconds always shown, from seconds since midnight.
  public static func clockText(secondsOfDay seconds: Int) -> String {
    "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))"
  }
}
