extension Duration {
  /// Parses a config-file duration with millisecond resolution, in the spirit of systemd's
  /// time spans: `500ms`, `60s`, `10min`, `1h`, `1min 30s`, `1h30min`; a plain whole number is
  /// seconds. Units: ms/msec, s/sec/second(s), m/min/minute(s), h/hr/hour(s). Nil for anything
  /// else (fractions, negative numbers, unknown units, overflow).
  public init?(configText text: String) {
    let chars = Array(text.trimmingWhitespace())
    guard !chars.isEmpty else { return nil }
    if chars.allSatisfy(\.isASCIIDigit) {
      guard let seconds = Int64(String(chars)), seconds <= Int64.max / 1000 else { return nil }
      self = .seconds(seconds)
      return
    }
    var total: Int64 = 0
    var index = 0
    while index < chars.count {
      let numberStart = index
      while index < chars.count, chars[index].isASCIIDigit { index += 1 }
      guard index > numberStart, let number = Int64(String(chars[numberStart..<index])) else { return nil }
      while index < chars.count, chars[index] == " " || chars[index] == "\t" { index += 1 }
      let unitStart = index
      while index < chars.count, chars[index].isASCIILetter { index += 1 }
      guard let scale = Self.unitMilliseconds[String(chars[unitStart..<index]).lowercased()] else {
        return nil
      }
      let (part, overflow) = number.multipliedReportingOverflow(by: scale)
      let (sum, sumOverflow) = total.addingReportingOverflow(part)
      guard !overflow, !sumOverflow else { return nil }
      total = sum
      while index < chars.count, chars[index] == " " || chars[index] == "\t" { index += 1 }
    }
    self = .milliseconds(total)
  }

  /// The duration in the form the config file uses: `500ms`, `60s`, `10min`, `1h 30min`,
  /// `1min 30s`, `0s`. Sub-millisecond parts are dropped.
  public var configText: String {
    let (seconds, attoseconds) = components
    var milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
    if milliseconds == 0 { return "0s" }
    if milliseconds < 0 { return "-" + Duration.milliseconds(-milliseconds).configText }
    var parts: [String] = []
    for (unit, scale) in [("h", Int64(3_600_000)), ("min", 60_000), ("s", 1000), ("ms", 1)] {
      let count = milliseconds / scale
      milliseconds %= scale
      if count > 0 { parts.append("\(count)\(unit)") }
    }
    return parts.joined(separator: " ")
  }

  private static let unitMilliseconds: [String: Int64] = [
    "ms": 1, "msec": 1,
    "s": 1000, "sec": 1000, "second": 1000, "seconds": 1000,
    "m": 60_000, "min": 60_000, "minute": 60_000, "minutes": 60_000,
    "h": 3_600_000, "hr": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
  ]
}

extension Character {
  /// `a`...`z` or `A`...`Z`.
  var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
