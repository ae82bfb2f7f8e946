// Queries run on every ZoneRules a fuzz input produced: the calls the schedule makes
// (offset(at:), instant(for:at:), localDateTime(at:)) at extreme instants and around the
// zone's own transitions, checking RFC 5545's rule for local times that occur twice or never.

#if canImport(Glibc)
  import Glibc
#endif

/// Instants anywhere in Int64, as offset(at:) may be asked about any clock reading.
let extremeInstants: [Int64] = [
  .min, .min + 1, -(1 << 62), -(1 << 52), -(1 << 40), -62_135_596_800, -2_208_988_800,
  Int64(Int32.min) - 1, Int64(Int32.min), -1, 0, 1, 1_774_800_000, 1_792_000_000,
  Int64(Int32.max), Int64(Int32.max) + 1, 253_402_300_799, 1 << 40, 1 << 52, 1 << 62, .max - 1, .max,
]

/// Unix seconds of 0000-01-01 and 9999-12-31 23:59:59: the dates LocalDate(parsing:) accepts,
/// so the local times an alarm can name.
let earliestLocal: Int64 = -62_167_219_200
let latestLocal: Int64 = 253_402_300_799

func exerciseZone(_ rules: ZoneRules) {
  _ = rules.description
  for t in extremeInstants {
    let instant = Instant(unixSeconds: t)
    _ = rules.offset(at: instant)
    _ = rules.abbreviation(at: instant)
    _ = rules.isDST(at: instant)
  }
  // Instants whose local time is within the years an alarm can name.
  for t in [earliestLocal + 100_000, -1, 0, 1_774_800_000, 1_792_000_000, latestLocal - 100_000] {
    _ = rules.localDateTime(at: Instant(unixSeconds: t))
  }

  // Local times around each transition (a sample when there are many) and each rule change
  // over a few years, plus fixed dates at the ends of the range.
  var locals: [Int64] = [earliestLocal, earliestLocal + 86_399, 0, 1_774_800_000, latestLocal - 86_399]
  var transitions: [Int64] = []
  let stride = max(1, rules.transitionTimes.count / 24)
  for i in Swift.stride(from: 0, to: rules.transitionTimes.count, by: stride) {
    transitions.append(rules.transitionTimes[i])
  }
  if let last = rules.transitionTimes.last { transitions.append(last) }
  for year: Int64 in [1970, 2026, 2100] {
    let start = (year - 1970) * 31_556_952
    for change in rules.offsetChanges(after: start, through: start + 31_556_952) {
      transitions.append(change.at)
    }
  }
  for at in transitions.prefix(64) where at > earliestLocal + 200_000 && at < latestLocal - 200_000 {
    let before = Int64(rules.type(at: at - 1).offset)
    let after = Int64(rules.type(at: at).offset)
    for base in [at + before, at + after] {
      for delta: Int64 in [-3601, -1, 0, 1, 1800, 3599, 3600] { locals.append(base + delta) }
    }
  }
  let offsets = possibleOffsets(rules)
  for local in locals where local >= earliestLocal && local <= latestLocal {
    let (date, seconds) = Instant(unixSeconds: local).utcDateAndTime
    let time = WallTime(hour: seconds / 3600, minute: seconds / 60 % 60, second: seconds % 60)
    let instant = rules.instant(for: date, at: time)
    checkResolution(rules, local: local, result: instant.unixSeconds, offsets: offsets)
  }
}

/// Every offset the zone can be in: its local time types and its rule's.
func possibleOffsets(_ rules: ZoneRules) -> [Int64] {
  var offsets: Set<Int> = [rules.initialType.offset]
  for type in rules.transitionTypes { offsets.insert(type.offset) }
  if let rule = rules.rule {
    offsets.insert(rule.standard.offset)
    if let daylight = rule.daylight { offsets.insert(daylight.type.offset) }
  }
  return offsets.map(Int64.init)
}

/// RFC 5545 §3.3.5 as ZoneRules documents it: a local time that exists resolves to its
/// earliest instant; one that does not (a gap) resolves to an instant whose local time is later.
func checkResolution(_ rules: ZoneRules, local: Int64, result: Int64, offsets: [Int64]) {
  // resolve() walks offsetChanges(after:through:) over local ± window; it can only be right
  // when that list has every instant where type(at:) changes. It does not always (findings 1
  // and 2 in fuzz/README.md): fail on that with PUCK_FUZZ_STRICT=1, else skip the check here.
  let window: Int64 = 93_599 + 3600
  if let missed = unlistedOffsetChange(rules, after: local - window, through: local + window) {
    fuzzCheck(
      !strictZoneChecks, "\(rules.name): offset changes at \(missed) but offsetChanges does not list it")
    return
  }
  // The instants whose local time is `local`: t = local − o where the offset at t is o.
  let matches = offsets.map { local - $0 }.filter { Int64(rules.type(at: $0).offset) == local - $0 }
  let resultLocal = result + Int64(rules.type(at: result).offset)
  if let earliest = matches.min() {
    fuzzCheck(
      result == earliest,
      "\(rules.name): local \(local) resolved to \(result) (local \(resultLocal)), earliest is \(earliest)")
  } else {
    fuzzCheck(
      resultLocal > local,
      "\(rules.name): local \(local) is in a gap but resolved to \(result) with local \(resultLocal)")
  }
}

/// The three findings in fuzz/README.md are fixed, so they fail the run by default;
/// PUCK_FUZZ_STRICT=0 skips them (to fuzz an older checkout).
let strictZoneChecks = getenv("PUCK_FUZZ_STRICT").map { String(cString: $0) != "0" } ?? true

/// An instant in `(start, end]` where type(at:) changes offset but offsetChanges(after:through:)
/// does not say so, or nil. type(at:) is constant between the instants collected here (the
/// window start, transitions, rule events, the first instant after the last transition, and
/// UTC new years, where PosixTimeZone switches the years it looks at), so checking those is
/// exhaustive.
func unlistedOffsetChange(_ rules: ZoneRules, after start: Int64, through end: Int64) -> Int64? {
  var points: [Int64] = []
  for t in rules.transitionTimes where t > start && t <= end { points.append(t) }
  if let last = rules.transitionTimes.last, last < .max { points.append(last + 1) }
  let firstYear = Instant(unixSeconds: start).utcDateAndTime.date.year
  let lastYear = Instant(unixSeconds: end).utcDateAndTime.date.year
  for year in firstYear...(lastYear + 1) {
    points.append(Int64(LocalDate(year: year, month: 1, day: 1).daysSinceEpoch) * 86_400)
  }
  if let rule = rules.rule, let daylight = rule.daylight {
    for year in (firstYear - 2)...(lastYear + 2) {
      points.append(daylight.end.unixSeconds(in: year, offset: daylight.type.offset))
      points.append(daylight.start.unixSeconds(in: year, offset: rule.standard.offset))
    }
  }
  let changes = rules.offsetChanges(after: start, through: end)
  for point in Set(points).sorted() where point > start && point <= end {
    var expected = rules.type(at: start).offset
    for change in changes where change.at <= point { expected = change.after }
    if rules.type(at: point).offset != expected { return point }
  }
  return nil
}
