/// A moment in time: whole seconds since 1970-01-01T00:00:00Z, zone-free.
///
/// The core works in whole seconds: alarms are set to the second at most, and integer
/// arithmetic keeps schedule and time-zone computations exact. Encoded as `2026-03-30T03:30:00Z`.
public struct Instant: Hashable, Comparable, Sendable, TextCodable, CustomStringConvertible {
  /// Seconds since the Unix epoch, UTC.
  public var unixSeconds: Int64

  public init(unixSeconds: Int64) {
    self.unixSeconds = unixSeconds
  }

  /// The UTC instant of a calendar date and second of day.
  public init(utcDate date: LocalDate, secondsOfDay: Int) {
    self.unixSeconds = Int64(date.daysSinceEpoch) * 86_400 + Int64(secondsOfDay)
  }

  /// This instant moved by a number of seconds.
  public func adding(seconds: Int64) -> Instant {
    Instant(unixSeconds: unixSeconds + seconds)
  }

  /// This instant moved by a duration, truncated to whole seconds.
  public func adding(_ duration: Duration) -> Instant {
    adding(seconds: duration.components.seconds)
  }

  /// The seconds from `other` to this instant.
  public func seconds(since other: Instant) -> Int64 {
    unixSeconds - other.unixSeconds
  }

  /// The UTC calendar date and second of day.
  public var utcDateAndTime: (date: LocalDate, secondsOfDay: Int) {
    let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
    return (LocalDate(daysSinceEpoch: Int(days)), Int(unixSeconds - days * 86_400))
  }

  /// `2026-03-30T03:30:00Z`.
  public var description: String {
    Instant.iso8601(unixSeconds: unixSeconds, offset: 0)
  }

  /// ISO 8601 with seconds and a numeric offset (`Z` for zero): `2026-03-30T06:30:00+03:00`.
  public static func iso8601(unixSeconds: Int64, offset: Int) -> String {
    let (date, seconds) = Instant(unixSeconds: unixSeconds + Int64(offset)).utcDateAndTime
    return "\(date)T\(WallTime.clockText(secondsOfDay: seconds))\(formatOffset(offset))"
  }

  /// `Z`, `+03:00`, `-04:00`, `+10:30`, `+05:45`; seconds shown only when the offset has them.
  public static func formatOffset(_ offset: Int) -> String {
    if offset == 0 { return "Z" }
    let sign = offset < 0 ? "-" : "+"
    let magnitude = abs(offset)
    var text = "\(sign)\(pad(magnitude / 3600, 2)):\(pad(magnitude / 60 % 60, 2))"
    if magnitude % 60 != 0 { text += ":\(pad(magnitude % 60, 2))" }
    return text
  }

  /// Parses ISO 8601 with an explicit offset or `Z`: `2026-03-30T06:30:00+03:00`,
  /// `2026-03-30T03:30Z`, `2026-03-30 03:30:00Z`.
  public init?(iso8601 text: String) {
    let chars = Array(text)
    guard chars.count >= 17, chars[10] == "T" || chars[10] == " " || chars[10] == "t",
      let date = try? LocalDate(parsing: String(chars[0..<10]))
    else { return nil }
    var rest = String(chars[11...])
    var offset = 0
    if rest.hasSuffix("Z") || rest.hasSuffix("z") {
      rest.removeLast()
    } else if let signIndex = rest.lastIndex(where: { $0 == "+" || $0 == "-" }) {
      let offsetText = rest[rest.index(after: signIndex)...]
      guard let parsed = try? WallTime(parsing: String(offsetText)) else { return nil }
      offset = parsed.secondsOfDay * (rest[signIndex] == "-" ? -1 : 1)
      rest = String(rest[..<signIndex])
    } else {
      return nil
    }
    guard let time = try? WallTime(parsing: rest) else { return nil }
    let seconds = Instant(utcDate: date, secondsOfDay: time.secondsOfDay).unixSeconds - Int64(offset)
    // Only what prints back as a four-digit year (0000-01-01 … 9999-12-31 UTC): anything else
    // would be written to a state file in a form that file could not be read back from.
    guard (-62_167_219_200...253_402_300_799).contains(seconds) else { return nil }
    self.init(unixSeconds: seconds)
  }

  public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.unixSeconds < rhs.unixSeconds }

  public init(codingText text: String) throws {
    guard let parsed = Instant(iso8601: text) else {
      throw TextCodingError(description: "'\(text)' is not an ISO 8601 instant")
    }
    self = parsed
  }

  public var codingText: String { description }
}
