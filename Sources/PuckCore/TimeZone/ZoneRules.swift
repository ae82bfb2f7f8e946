/// A time zone's rules: which UTC offset, abbreviation and DST flag apply at every instant,
/// and which instant a local date and wall-clock time name.
///
/// Built from the bytes of a TZif file (RFC 8536, read by `ZoneRules+TZif.swift`), from a
/// POSIX TZ string alone (`EST5EDT,M3.2.0,M11.1.0`), or `utc`. Reading the file is the
/// caller's job: the core does no I/O.
public struct ZoneRules: Hashable, Sendable, CustomStringConvertible {
  /// The zone's name (`Europe/Bucharest`), or the POSIX TZ string it was built from.
  public let name: String
  /// Transition instants (Unix seconds), strictly increasing.
  let transitionTimes: [Int64]
  /// The local time type that starts at each transition.
  let transitionTypes: [LocalTimeType]
  /// The local time type before the first transition (and always, without transitions or rule).
  let initialType: LocalTimeType
  /// The rule for instants after the last transition (the TZif footer).
  let rule: PosixTimeZone?

  init(
    name: String, transitionTimes: [Int64], transitionTypes: [LocalTimeType],
    initialType: LocalTimeType, rule: PosixTimeZone?
  ) {
    self.name = name
    self.transitionTimes = transitionTimes
    self.transitionTypes = transitionTypes
    self.initialType = initialType
    self.rule = rule
  }

  /// Coordinated Universal Time: offset zero, always.
  public static let utc = ZoneRules(
    name: "UTC", transitionTimes: [], transitionTypes: [],
    initialType: LocalTimeType(offset: 0, isDST: false, abbreviation: "UTC"), rule: nil)

  /// Rules from a POSIX TZ string alone, as a `TZ` variable may hold: `EST5EDT,M3.2.0,M11.1.0`,
  /// `<+1030>-10:30<+11>-11,M10.1.0,M4.1.0`, `UTC0`. A `:Europe/Paris` file reference is not a
  /// rule; the caller resolves it to a TZif file.
  public init(posixTZ text: String) throws(ZoneRulesError) {
    let rule = try PosixTimeZone(parsing: text)
    self.init(name: text, transitionTimes: [], transitionTypes: [], initialType: rule.standard, rule: rule)
  }

  /// The name, for logs and status.
  public var description: String { name }

  /// Seconds east of UTC at `instant` (`10800` for EEST, `-18000` for EST).
  public func offset(at instant: Instant) -> Int {
    type(at: instant.unixSeconds).offset
  }

  /// The abbreviation in effect at `instant` (`EEST`, `+1030`).
  public func abbreviation(at instant: Instant) -> String {
    type(at: instant.unixSeconds).abbreviation
  }

  /// Whether the zone's data calls the time at `instant` daylight saving time (true in a
  /// Europe/Dublin winter, whose GMT is marked as negative DST).
  public func isDST(at instant: Instant) -> Bool {
    type(at: instant.unixSeconds).isDST
  }

  /// The local date, second of the day and offset at `instant`.
  public func localDateTime(at instant: Instant) -> (date: LocalDate, secondsOfDay: Int, offset: Int) {
    let offset = type(at: instant.unixSeconds).offset
    let local = instant.adding(seconds: Int64(offset)).utcDateAndTime
    return (local.date, local.secondsOfDay, offset)
  }

  /// The instant a local date and wall-clock time name, resolved as RFC 5545 §3.3.5 says:
  ///
  /// - A local time that happens twice (the hour repeated when clocks fall back) is its FIRST
  ///   occurrence.
  /// - A local time that never happens (skipped when clocks spring forward) is read with the
  ///   offset in effect BEFORE the gap, so 02:30 in a 02:00→03:00 gap is 03:30 after it.
  ///
  /// The gap rule covers a skipped whole day too: Pacific/Apia went from 2011-12-29 23:59:59
  /// (−10) to 2011-12-31 00:00 (+14), so 2011-12-30 07:00 is read at −10 and lands on
  /// 2011-12-31 07:00 +14, the same instant as 2011-12-31 07:00. `Schedule` then rings once.
  public func instant(for date: LocalDate, at time: WallTime) -> Instant {
    let local = Int64(date.daysSinceEpoch) * 86_400 + Int64(time.secondsOfDay)
    return Instant(unixSeconds: resolve(localSeconds: local))
  }

  /// The Unix seconds for local seconds (`local` counts seconds since 1970-01-01 00:00 local).
  private func resolve(localSeconds local: Int64) -> Int64 {
    // Every instant carrying this local time lies within the largest offset either side.
    let window = Int64(
      max(-LocalTimeType.offsetRange.lowerBound, LocalTimeType.offsetRange.upperBound) + 3600)
    let lower = local - window
    let changes = offsetChanges(after: lower, through: local + window)
    // Walk the intervals of constant offset in order; the first that contains `local − offset`
    // holds the earliest instant with this local time.
    var intervalStart = lower
    var intervalOffset = type(at: lower).offset
    for change in changes + [nil] {
      let intervalEnd = change?.at ?? local + window + 1
      let candidate = local - Int64(intervalOffset)
      if candidate >= intervalStart && candidate < intervalEnd { return candidate }
      guard let change else { break }
      intervalStart = change.at
      intervalOffset = change.after
    }
    // No instant has this local time: it is in a gap. Use the offset from before the gap, which
    // moves the time forward by the gap's length (RFC 5545 §3.3.5). Where the offset changes
    // again within that length (only a hand-made zone does), that instant's local time can be
    // earlier than asked; the end of the gap, the change itself, is later (fuzz/README.md, 4).
    for change in changes
    where change.after > change.before && local >= change.at + Int64(change.before)
      && local < change.at + Int64(change.after)
    {
      let forward = local - Int64(change.before)
      return type(at: forward).offset > change.before ? forward : change.at
    }
    // Unreachable with offsets in range; fall back to the offset at the nominal instant.
    return local - Int64(type(at: local).offset)
  }

  /// The instants in `(start, end]` where the UTC offset changes, with the offsets around them.
  func offsetChanges(after start: Int64, through end: Int64) -> [(at: Int64, before: Int, after: Int)] {
    var candidates: [Int64] = []
    var index = firstTransition(after: start)
    while index < transitionTimes.count && transitionTimes[index] <= end {
      candidates.append(transitionTimes[index])
      index += 1
    }
    // Where the footer rule takes over from the last transition, the offset may change too
    // (RFC 8536 says it should not, but a damaged or hand-made file can disagree).
    if rule != nil, let last = transitionTimes.last, last < Int64.max, last + 1 > start, last + 1 <= end {
      candidates.append(last + 1)
    }
    if let rule, rule.daylight != nil, end > (transitionTimes.last ?? Int64.min) {
      // Each call covers three years around `probe`; the range spans at most a few days.
      var probe = start
      while true {
        for event in rule.events(aroundYearOf: probe) where event.at > start && event.at <= end {
          candidates.append(event.at)
        }
        if probe > end { break }
        probe += 365 * 86_400
      }
    }
    var changes: [(at: Int64, before: Int, after: Int)] = []
    for at in Set(candidates).sorted() {
      let before = type(at: at - 1).offset
      let after = type(at: at).offset
      if before != after { changes.append((at, before, after)) }
    }
    return changes
  }

  /// The local time type at `unixSeconds`.
  func type(at unixSeconds: Int64) -> LocalTimeType {
    guard let last = transitionTimes.last else {
      return rule?.type(at: unixSeconds) ?? initialType
    }
    if unixSeconds > last, let rule { return rule.type(at: unixSeconds) }
    let next = firstTransition(after: unixSeconds)
    return next == 0 ? initialType : transitionTypes[next - 1]
  }

  /// The index of the first transition strictly after `unixSeconds` (binary search).
  private func firstTransition(after unixSeconds: Int64) -> Int {
    var low = 0
    var high = transitionTimes.count
    while low < high {
      let middle = (low + high) / 2
      if transitionTimes[middle] <= unixSeconds { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
