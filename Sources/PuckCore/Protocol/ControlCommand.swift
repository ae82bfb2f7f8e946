/// Who may send a command over the control socket (docs/DESIGN.md C2).
public enum Role: Int, Comparable, Sendable, Codable {
  /// Anyone who can reach the socket: read-only commands.
  case anyone = 0
  /// Root or a member of the `puckalarm` group: alarm changes, stop, scan, test.
  case member = 1
  /// Root only: pair, unpair, override.
  case root = 2

  public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A new alarm as `puckctl alarm add` describes it.
public struct AlarmDraft: Hashable, Sendable {
  public var time: WallTime
  public var recurrence: DraftRecurrence
  public var label: String
  public var requiresPuck: Bool

  public init(time: WallTime, recurrence: DraftRecurrence, label: String = "", requiresPuck: Bool = true) {
    self.time = time
    self.recurrence = recurrence
    self.label = label
    self.requiresPuck = requiresPuck
  }
}

/// How a new alarm repeats, as the client said it. "Today", "tomorrow" and "the next HH:MM"
/// are the daemon's today: puckctl may run in another zone (ssh from a laptop, a container
/// with another TZ), and the alarm rings by the dock's clock.
public enum DraftRecurrence: Hashable, Sendable {
  /// Every week on these days.
  case weekly(Set<Weekday>)
  /// Once, on this date.
  case once(LocalDate)
  /// Once, today in the daemon's zone.
  case today
  /// Once, tomorrow in the daemon's zone.
  case tomorrow
  /// Once, at the next time the clock shows the alarm's time (today or tomorrow), like a phone.
  case next

  /// The recurrence in `zone` at `now`, for an alarm at `time`.
  public func resolved(time: WallTime, now: Instant, in zone: ZoneRules) -> Recurrence {
    let today = zone.localDateTime(at: now).date
    switch self {
    case .weekly(let days): return .weekly(days)
    case .once(let date): return .once(date)
    case .today: return .once(today)
    case .tomorrow: return .once(today.adding(days: 1))
    case .next: return .once(zone.instant(for: today, at: time) > now ? today : today.adding(days: 1))
    }
  }
}

/// A date as the client said it: a calendar date, or today or tomorrow in the daemon's zone.
public enum DraftDate: Hashable, Sendable {
  case absolute(LocalDate)
  case today
  case tomorrow

  /// The date, `today` being the daemon's.
  public func resolved(today: LocalDate) -> LocalDate {
    switch self {
    case .absolute(let date): return date
    case .today: return today
    case .tomorrow: return today.adding(days: 1)
    }
  }
}

/// What `alarm edit` changes; nil leaves a field as it is.
public struct AlarmEdit: Hashable, Sendable {
  public var time: WallTime?
  /// Weekly days, or once on a date (`today`/`tomorrow` are the daemon's); never `.next`.
  public var recurrence: DraftRecurrence?
  public var label: String?
  public var requiresPuck: Bool?

  public init(
    time: WallTime? = nil, recurrence: DraftRecurrence? = nil, label: String? = nil, requiresPuck: Bool? = nil
  ) {
    self.time = time
    self.recurrence = recurrence
    self.label = label
    self.requiresPuck = requiresPuck
  }

  /// Whether it changes nothing.
  public var isEmpty: Bool { time == nil && recurrence == nil && label == nil && requiresPuck == nil }
}

/// A request on the control socket, decoded and validated.
public enum ControlCommand: Hashable, Sendable {
  case status
  /// Read the next tag twice and pair it; progress lines until done or `timeout` seconds.
  /// Read the next tag twice and add it to the pucks as `name` (nil: the next default name);
  /// progress lines until done or `timeout` seconds.
  case pair(timeoutSeconds: Int, name: String? = nil)
  /// Forget the puck `name` (nil: the only one); `confirmed` lets the last puck go while an
  /// enabled alarm needs one.
  case unpair(name: String? = nil, confirmed: Bool = false)
  /// The paired pucks.
  case pucks
  case alarmAdd(AlarmDraft)
  case alarmList
  case alarmRemove(AlarmID)
  case alarmSetEnabled(AlarmID, Bool)
  case alarmSkip(AlarmID)
  /// Changes an alarm's time, days or date, label or puck requirement.
  case alarmEdit(AlarmID, AlarmEdit)
  /// Pauses an alarm until a date (the first day it rings again), or resumes it (nil).
  case alarmPause(AlarmID, until: DraftDate?)
  /// Pauses the whole dock until a date, or resumes it (nil).
  case pause(until: DraftDate?)
  /// A bypass, as the dock button.
  case stop
  /// A simulated scan (only a `--simulate` daemon accepts it).
  case scan(TagUID)
  case override
  /// Stops an override that is counting down (`puckctl override --cancel`).
  case overrideCancel
  /// A page of the history, newest last.
  case history(HistoryQuery)
  /// A short rehearsal: ring for `seconds` at the starting volume, then wait up to
  /// `scanSeconds` for the puck (0: no scan), and report every part.
  case test(seconds: Int, scanSeconds: Int = CommandTable.testScanSeconds.defaultValue ?? 30)
  /// Clear the state problems status shows (corrupt files kept aside).
  case acknowledge
  /// Run the pre-flight check now and report every part.
  case check
  /// Answer the wake-up check (as the dock button does).
  case awake
  /// Enrol a remote reader under a name with a new key, or with the key another dock made for
  /// the same node (64 lower-case hex digits).
  case readerAdd(String, key: String? = nil)
  /// Remove a remote reader and its key.
  case readerRemove(String)
  /// The remote readers and their health.
  case readerList

  /// Which row of `CommandTable` this is.
  public var kind: CommandName {
    switch self {
    case .status: return .status
    case .pair: return .pair
    case .unpair: return .unpair
    case .pucks: return .pucks
    case .alarmAdd: return .alarmAdd
    case .alarmList: return .alarmList
    case .alarmRemove: return .alarmRemove
    case .alarmSetEnabled(_, let enabled): return enabled ? .alarmEnable : .alarmDisable
    case .alarmSkip: return .alarmSkip
    case .alarmEdit: return .alarmEdit
    case .alarmPause(_, let until): return until == nil ? .alarmResume : .alarmPause
    case .pause(let until): return until == nil ? .resume : .pause
    case .stop: return .stop
    case .scan: return .scan
    case .override, .overrideCancel: return .override
    case .history: return .history
    case .test: return .test
    case .acknowledge: return .acknowledge
    case .check: return .check
    case .awake: return .awake
    case .readerAdd: return .readerAdd
    case .readerRemove: return .readerRemove
    case .readerList: return .readerList
    }
  }

  /// The least privileged role allowed to send it, from the command table.
  public var requiredRole: Role { kind.spec.role }

  /// The name on the wire and in logs.
  public var name: String { kind.rawValue }
}
