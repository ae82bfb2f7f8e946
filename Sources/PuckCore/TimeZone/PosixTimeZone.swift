/// A POSIX TZ rule such as `EET-2EEST,M3.5.0/3,M10.5.0/4`: a standard time and, optionally, a
/// daylight time with the yearly rules that switch between them.
///
/// TZif files end with one (the "footer") to describe every instant after their last
/// transition, and the `TZ` environment variable may hold one. Parsing follows POSIX with the
/// RFC 8536 §3.3 extensions: transition times from −167 to +167 hours, and `<+1030>`-style
/// quoted names.
struct PosixTimeZone: Hashable, Sendable {
  /// The local time when daylight time is not in effect.
  var standard: LocalTimeType
  /// The daylight time and its yearly rules, if the zone has one.
  var daylight: Daylight?

  /// A daylight time and when it starts and ends each year.
  struct Daylight: Hashable, Sendable {
    /// The local time while daylight time is in effect.
    var type: LocalTimeType
    /// When daylight time starts, in standard local time.
    var start: TransitionRule
    /// When daylight time ends, in daylight local time.
    var end: TransitionRule
  }

  /// A yearly day and a local time of day, e.g. "last Sunday in March at 03:00".
  struct TransitionRule: Hashable, Sendable {
    /// How a rule names its day.
    enum Day: Hashable, Sendable {
      /// `Jn`: day 1…365, February 29 never counted.
      case julian(Int)
      /// `n`: day 0…365 counting February 29.
      case zeroBased(Int)
      /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
      case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    var day: Day
    /// Seconds after local midnight; may be negative or beyond a day.
    var time: Int

    /// The date this rule names in `year`.
    func date(in year: Int) -> LocalDate {
      let january1 = LocalDate(year: year, month: 1, day: 1)
      switch day {
      case .julian(let n):
        let leapShift = LocalDate.isLeap(year) && n >= 60 ? 1 : 0
        return january1.adding(days: n - 1 + leapShift)
      case .zeroBased(let n):
        return january1.adding(days: n)
      case .monthWeekDay(let month, let week, let weekday):
        let first = LocalDate(year: year, month: month, day: 1)
        let firstWeekday = first.weekday.rawValue % 7  // POSIX numbering: Sunday = 0
        var day = 1 + (weekday - firstWeekday + 7) % 7 + 7 * (week - 1)
        while day > LocalDate.daysIn(year: year, month: month) { day -= 7 }
        return LocalDate(year: year, month: month, day: day)
      }
    }

    /// The UTC instant (Unix seconds) of this rule in `year`, read in local time at `offset`.
    func unixSeconds(in year: Int, offset: Int) -> Int64 {
      Int64(date(in: year).daysSinceEpoch) * 86_400 + Int64(time) - Int64(offset)
    }
  }

  /// The local time type in effect at `unixSeconds`.
  func type(at unixSeconds: Int64) -> LocalTimeType {
    guard let daylight else { return standard }
    var latest: (at: Int64, isDaylight: Bool)?
    for event in events(aroundYearOf: unixSeconds) where event.at <= unixSeconds {
      if event.at >= (latest?.at ?? Int64.min) { latest = event }
    }
    return latest?.isDaylight == true ? daylight.type : standard
  }

  /// The start and end instants of daylight time for the UTC years around `unixSeconds`,
  /// ends before starts within a year so that when an end and a start coincide (daylight
  /// time all year, RFC 8536 §3.3.1) the start wins.
  func events(aroundYearOf unixSeconds: Int64) -> [(at: Int64, isDaylight: Bool)] {
    guard let daylight else { return [] }
    // Clamped so that absurd instants (Int64.max) cannot overflow the date arithmetic; the
    // rules repeat every year, so the answer is the same kind either way.
    let bound: Int64 = 1 << 52
    let year = Instant(unixSeconds: min(max(unixSeconds, -bound), bound)).utcDateAndTime.date.year
    var events: [(at: Int64, isDaylight: Bool)] = []
    // Two years back: with transition times up to ±167 h (RFC 8536) an event of year - 2 can
    // fall into this year and be the latest one before an instant in it.
    for y in (year - 2)...(year + 1) {
      events.append((daylight.end.unixSeconds(in: y, offset: daylight.type.offset), false))
      events.append((daylight.start.unixSeconds(in: y, offset: standard.offset), true))
    }
    return events
  }
}

extension PosixTimeZone {
  /// Parses a POSIX TZ string. Without rules after the daylight name (`EST5EDT`), the US rules
  /// `M3.2.0,M11.1.0` apply, as in glibc.
  init(parsing text: String) throws(ZoneRulesError) {
    var parser = Parser(text: text)
    let standardName = try parser.name()
    let standardOffset = try parser.offset()
    standard = LocalTimeType(offset: standardOffset, isDST: false, abbreviation: standardName)
    if parser.atEnd {
      daylight = nil
      return
    }
    let daylightName = try parser.name()
    var daylightOffset = standardOffset + 3600
    if let next = parser.peek, next != UInt8(ascii: ",") {
      daylightOffset = try parser.offset()
    }
    let start: TransitionRule
    let end: TransitionRule
    if parser.atEnd {
      start = TransitionRule(day: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7200)
      end = TransitionRule(day: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7200)
    } else {
      try parser.expect(",")
      start = try parser.rule()
      try parser.expect(",")
      end = try parser.rule()
    }
    guard parser.atEnd else { throw parser.error("unexpected text after the rules") }
    daylight = Daylight(
      type: LocalTimeType(offset: daylightOffset, isDST: true, abbreviation: daylightName),
      start: start, end: end)
  }

  /// Reads a POSIX TZ string left to right.
  private struct Parser {
    let text: String
    let bytes: [UInt8]
    var index = 0

    init(text: String) {
      self.text = text
      self.bytes = Array(text.utf8)
    }

    var atEnd: Bool { index == bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[index] }

    func error(_ reason: String) -> ZoneRulesError { .badPosixTZ(text, reason: reason) }

    mutating func expect(_ character: Unicode.Scalar) throws(ZoneRulesError) {
      guard peek == UInt8(ascii: character) else { throw error("expected '\(character)'") }
      index += 1
    }

    /// `EET` (three or more letters) or `<+1030>` (letters, digits, `+`, `-`).
    mutating func name() throws(ZoneRulesError) -> String {
      let start: Int
      let end: Int
      if peek == UInt8(ascii: "<") {
        index += 1
        start = index
        while let byte = peek,
          byte.isASCIIAlphanumeric || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
        {
          index += 1
        }
        end = index
        try expect(">")
      } else {
        start = index
        while let byte = peek, byte.isASCIILetter { index += 1 }
        end = index
      }
      guard end - start >= 3 else { throw error("a zone name needs at least three characters") }
      return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// An optional sign and `hh[:mm[:ss]]`, returned as seconds.
    mutating func signedDuration(maxHours: Int) throws(ZoneRulesError) -> Int {
      var sign = 1
      if peek == UInt8(ascii: "+") {
        index += 1
      } else if peek == UInt8(ascii: "-") {
        sign = -1
        index += 1
      }
      let hours = try number(maxDigits: 3)
      guard hours <= maxHours else { throw error("\(hours) hours is out of range") }
      var seconds = hours * 3600
      if peek == UInt8(ascii: ":") {
        index += 1
        let minutes = try number(maxDigits: 2)
        guard minutes < 60 else { throw error("\(minutes) minutes is out of range") }
        seconds += minutes * 60
        if peek == UInt8(ascii: ":") {
          index += 1
          let secs = try number(maxDigits: 2)
          guard secs < 60 else { throw error("\(secs) seconds is out of range") }
          seconds += secs
        }
      }
      return sign * seconds
    }

    /// A UTC offset, seconds east; POSIX writes them west of UTC (`EET-2` is UTC+2).
    mutating func offset() throws(ZoneRulesError) -> Int {
      guard let byte = peek, byte.isASCIIDigit || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
      else { throw error("expected an offset such as 5 or -2 after the zone name") }
      return -(try signedDuration(maxHours: 24))
    }

    /// `Jn`, `n` or `Mm.w.d`, then an optional `/time` (default 02:00).
    mutating func rule() throws(ZoneRulesError) -> TransitionRule {
      let day: TransitionRule.Day
      if peek == UInt8(ascii: "J") {
        index += 1
        let n = try number(maxDigits: 3)
        guard (1...365).contains(n) else { throw error("J\(n) is not a day 1…365") }
        day = .julian(n)
      } else if peek == UInt8(ascii: "M") {
        index += 1
        let month = try number(maxDigits: 2)
        try expect(".")
        let week = try number(maxDigits: 1)
        try expect(".")
        let weekday = try number(maxDigits: 1)
        guard (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday) else {
          throw error("M\(month).\(week).\(weekday) needs month 1…12, week 1…5 and weekday 0…6")
        }
        day = .monthWeekDay(month: month, week: week, weekday: weekday)
      } else {
        let n = try number(maxDigits: 3)
        guard (0...365).contains(n) else { throw error("day \(n) is not 0…365") }
        day = .zeroBased(n)
      }
      var time = 7200
      if peek == UInt8(ascii: "/") {
        index += 1
        time = try signedDuration(maxHours: 167)
      }
      return TransitionRule(day: day, time: time)
    }

    mutating func number(maxDigits: Int) throws(ZoneRulesError) -> Int {
      var value = 0
      var digits = 0
      while let byte = peek, byte.isASCIIDigit, digits < maxDigits {
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
        digits += 1
        index += 1
      }
      guard digits > 0 else { throw error("expected a number at position \(index + 1)") }
      return value
    }
  }
}

extension UInt8 {
  var isASCIIDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
  var isASCIILetter: Bool {
    (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z"))
      || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z"))
  }
  var isASCIIAlphanumeric: Bool { isASCIIDigit || isASCIILetter }
}
