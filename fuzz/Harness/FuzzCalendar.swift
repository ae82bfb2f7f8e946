// Times, dates, instants and day sets typed by a person or read from files: the same text goes
// to every parser; each parses or throws, and what parses reads back from its description.

func fuzzCalendar(_ data: UnsafeBufferPointer<UInt8>) {
  let input = text(data)
  if let instant = Instant(iso8601: input) {
    _ = instant.utcDateAndTime
    // Finding 3 in fuzz/README.md: outside 0000…9999 UTC the description does not read back.
    let year = instant.utcDateAndTime.date.year
    if strictZoneChecks || (0...9999).contains(year) {
      fuzzCheck(Instant(iso8601: instant.description) == instant, "\(input) → \(instant) does not parse back")
    }
  }
  if let time = try? WallTime(parsing: input) {
    fuzzCheck((0..<86_400).contains(time.secondsOfDay), "time \(time) out of the day")
    fuzzCheck((try? WallTime(parsing: time.description)) == time, "\(time) does not parse back")
  }
  if let date = try? LocalDate(parsing: input) {
    fuzzCheck((try? LocalDate(parsing: date.description)) == date, "\(date) does not parse back")
    fuzzCheck(LocalDate(daysSinceEpoch: date.daysSinceEpoch) == date, "\(date) day count round trip")
    _ = date.weekday
  }
  do {
    let days = try Weekday.parseSet(input)
    _ = days.map(\.shortName)
  } catch {
    _ = error.description
  }
  _ = Duration(configText: input)?.configText
}
