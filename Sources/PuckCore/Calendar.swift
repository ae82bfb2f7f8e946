/// A day of the week, ISO 8601 numbering (Monday = 1 … Sunday = 7).
public enum Weekday: Int, CaseIterable, Sendable, Comparable, CustomStringConvertible {
  case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

  /// The three-letter lower-case name used on the command line and in files: `mon` … `sun`.
  public var shortName: String {
    ["mon", "tue", "wed", "thu", "fri", "sat", "sun"][rawValue - 1]
  }

  /// `Mon` … `Sun`, for people.
  public var description: String {
    ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][rawValue - 1]
  }

  public init?(shortName: String) {
    let lower = shortName.lowercased()
    guard let match = Weekday.allCases.first(where: { $0.shortName == lower }) else { return nil }
    self = match
  }

  public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }

  /// Parses `mon,tue`, `weekdays`, `weekends` or `daily`.
  public static func parseSet(_ text: String) throws(ScheduleInputError) -> Set<Weekday> {
    switch text.lowercased() {
    case "daily": return Set(Weekday.allCases)
    case "weekdays": return [.monday, .tuesday, .wednesday, .thursday, .friday]
    case "weekends": return [.saturday, .sunday]
    default: break
    }
    var days: Set<Weekday> = []
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
      let name = String(part).trimmingWhitespace()
      guard let day = Weekday(shortName: name) else { throw .badDay(name) }
      days.insert(day)
    }
    return days
  }
}

/// A calendar date with no time and no zone (proleptic Gregorian).
public struct LocalDate: Hashable, Comparable, TextCodable, Sendable, CustomStringConvertible {
  public var year: Int
  public var month: Int
  public var day: Int

  public init(year: Int, month: Int, day: Int) {
    self.year = year
    self.month = month
    self.day = day
  }

  /// Parses `YYYY-MM-DD`, rejecting dates that do not exist (2026-02-29).
  public init(parsing text: String) throws(ScheduleInputError) {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
      let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
      (1...12).contains(month), (1...LocalDate.daysIn(year: year, month: month)).contains(day)
    else { throw .badDate(text) }
    self.init(year: year, month: month, day: day)
  }

  /// Days since 1970-01-01 (negative before).
  public var daysSinceEpoch: Int {
    // Howard Hinnant's days_from_civil.
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }

  /// The date `daysSinceEpoch` days after 1970-01-01.
  public init(daysSinceEpoch days: Int) {
    let z = days + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    self.init(year: yoe + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
  }

  /// The weekday of this date.
  public var weekday: Weekday {
    // 1970-01-01 was a Thursday (ISO 4).
    let index = ((daysSinceEpoch % 7) + 7 + 3) % 7  // 0 = Monday
    return Weekday(rawValue: index + 1)!
  }

  /// This date moved by `days`.
  public func adding(days: Int) -> LocalDate {
    LocalDate(daysSinceEpoch: daysSinceEpoch + days)
  }

  /// `2026-03-29`.
  public var description: String {
    "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
  }

  public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
    (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
  }

  /// Whether `year` is a Gregorian leap year.
  public static func isLeap(_ year: Int) -> Bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
  }

  /// The number of days in a month.
  public static func daysIn(year: Int, month: Int) -> Int {
    switch month {
    case 2: return isLeap(year) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  public init(codingText text: String) throws { try self.init(parsing: text) }

  public var codingText: String { description }
}

/// A wall-clock time of day: `HH:MM` or `HH:MM:SS`.
public struct WallTime: Hashable, Comparable, TextCodable, Sendable, CustomStringConvertible {
  public var hour: Int
  public var minute: Int
  public var second: Int

  public init(hour: Int, minute: Int, second: Int = 0) {
    self.hour = hour
    self.minute = minute
    self.second = second
  }

  /// Parses `06:30` or `06:30:15` (24-hour clock; one- or two-digit hour).
  public init(parsing text: String) throws(ScheduleInputError) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2 || parts.count == 3,
      (1...2).contains(parts[0].count), parts.dropFirst().allSatisfy({ $0.count == 2 }),
      parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
      let hour = Int(parts[0]), let minute = Int(parts[1]),
      (0...23).contains(hour), (0...59).contains(minute)
    else { throw .badTime(text) }
    let second = parts.count == 3 ? Int(parts[2]) ?? 99 : 0
    guard (0...59).contains(second) else { throw .badTime(text) }
    self.init(hour: hour, minute: minute, second: second)
  }

  /// Seconds since local midnight.
  public var secondsOfDay: Int { hour * 3600 + minute * 60 + second }

  /// `06:30`, or `06:30:15` when seconds are set.
  public var description: String {
    let base = "\(pad(hour, 2)):\(pad(minute, 2))"
    return second == 0 ? base : base + ":\(pad(second, 2))"
  }

  public static func < (lhs: WallTime, rhs: WallTime) -> Bool { lhs.secondsOfDay < rhs.secondsOfDay }

  public init(codingText text: String) throws { try self.init(parsing: text) }

  public var codingText: String { description }
}

/// Why a time, day or date given by a person was not accepted.
public enum ScheduleInputError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Not `HH:MM` or `HH:MM:SS` on a 24-hour clock.
  case badTime(String)
  /// Not a day name.
  case badDay(String)
  /// Not a real `YYYY-MM-DD` date.
  case badDate(String)
  /// An alarm needs weekdays or a date, not both.
  case daysAndDate

  public var description: String {
    switch self {
    case .badTime(let text): return "'\(text)' is not a time: use HH:MM or HH:MM:SS (24-hour)"
    case .badDay(let text):
      return "'\(text)' is not a day: use mon,tue,wed,thu,fri,sat,sun, weekdays, weekends or daily"
    case .badDate(let text): return "'\(text)' is not a date: use YYYY-MM-DD"
    case .daysAndDate: return "give either --days or --date, not both"
    }
  }
}

/// Zero-pads a non-negative number to `width` digits.
func pad(_ value: Int, _ width: Int) -> String {
  let text = String(value)
  return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}

extension Character {
  /// `0`…`9` only (not other Unicode digits).
  var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension Weekday: TextCodable {
  public init(codingText text: String) throws {
    guard let day = Weekday(shortName: text) else {
      throw TextCodingError(description: "'\(text)' is not a weekday")
    }
    self = day
  }

  public var codingText: String { shortName }

  public init(from decoder: any Decoder) throws { try self.init(codingTextFrom: decoder) }

  public func encode(to encoder: any Encoder) throws { try encodeCodingText(to: encoder) }
}
