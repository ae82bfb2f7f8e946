import Glibc
import PuckCore
import PuckStorage
import PuckSystem

// puck-schedule-bench: how long the daemon's loop would stall recomputing its schedule after a
// clock step, with far more alarms than a dock accepts (docs/BENCHMARKS.md "Schedule at
// scale"). Runs the core's own catch-up and next-fire computation, the work the daemon does on
// the loop thread when the kernel reports a step (timerfd's TFD_TIMER_CANCEL_ON_SET), on
// synthetic alarms in a zone with DST. Prints a table; asserts nothing.
//
//     swift run -c release puck-schedule-bench [ALARMS...]    (default: 100 1000 10000)

/// A deterministic generator, so every run times the same alarms.
struct SplitMix {
  var state: UInt64
  mutating func next(_ bound: Int) -> Int {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int((z ^ (z >> 31)) % UInt64(bound))
  }
}

/// Seven in ten weekly (one to seven days), the rest one-shots within a year of `start`.
func alarms(_ count: Int, from start: LocalDate) -> [Alarm] {
  var random = SplitMix(state: UInt64(count))
  return (0..<count).map { id in
    let time = WallTime(hour: random.next(24), minute: random.next(60), second: random.next(60))
    let recurrence: Recurrence
    if random.next(10) < 7 {
      var days = Set<Weekday>()
      for _ in 0...random.next(7) { days.insert(Weekday.allCases[random.next(7)]) }
      recurrence = .weekly(days)
    } else {
      recurrence = .once(start.adding(days: 1 + random.next(365)))
    }
    return Alarm(id: id + 1, time: time, recurrence: recurrence)
  }
}

/// Takes the results out of the optimiser's sight, so the timed work cannot be dropped.
@inline(never)
func consume<each Value>(_ values: repeat each Value) {
  _ = (repeat each values)
}

/// `value` with two decimals.
func fixed(_ value: Double) -> String {
  let hundredths = Int((value * 100).rounded())
  return "\(hundredths / 100)." + (hundredths % 100 < 10 ? "0" : "") + "\(hundredths % 100)"
}

func milliseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

let counts = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let zoneName = "Europe/Berlin"
let zone: ZoneRules
do {
  zone = try ZoneInfoDirectory().zone(named: zoneName)
} catch {
  // The table goes to stdout; a failure to stderr. A closed stderr loses the line, nothing more.
  try? writeAll(Array("puck-schedule-bench: \(error)\n".utf8), to: 2)
  exit(1)
}
// 2026-03-28 12:00 UTC: the night after crosses the spring-forward transition.
let base = Instant(unixSeconds: 1_774_699_200)
let steps: [(String, Int64)] = [
  ("forward 1 h", 3600), ("back 1 h", -3600), ("forward 1 day", 86_400), ("back 1 day", -86_400),
  ("forward 30 days", 30 * 86_400), ("forward 1 year (no RTC, then NTP)", 365 * 86_400),
]
let repeats = 15
print("| alarms | clock step | catch-up + next fire: median | max of \(repeats) |")
print("| --- | --- | --- | --- |")
for count in counts.isEmpty ? [100, 1000, 10_000] : counts {
  let set = alarms(count, from: LocalDate(year: 2026, month: 3, day: 28))
  var progress = ScheduleProgress(scheduledThrough: base)
  _ = progress.catchUp(set, now: base, policy: MissedAlarmPolicy(), clockSynchronized: true, in: zone)
  for (name, offset) in steps {
    var samples: [Double] = []
    for _ in 0..<repeats {
      var stepped = progress
      let now = base.adding(seconds: offset)
      let start = MonotonicInstant.now()
      let found = stepped.catchUp(
        set, now: now, policy: MissedAlarmPolicy(), clockSynchronized: true, in: zone)
      let next = stepped.nextAlarm(among: set, now: now, in: zone)
      samples.append(milliseconds(MonotonicInstant.now() - start))
      consume(found, next)
    }
    samples.sort()
    print(
      "| \(count) | \(name) | \(fixed(samples[samples.count / 2])) ms | \(fixed(samples.last ?? 0)) ms |")
  }
}
print("\nzone \(zoneName), base 2026-03-28 12:00 UTC (the DST night ahead), release build, CLOCK_MONOTONIC")
