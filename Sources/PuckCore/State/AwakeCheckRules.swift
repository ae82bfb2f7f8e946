/// The wake-up check's rules (docs/DESIGN.md W17), as values: when a check starts, what it
/// does when its time comes, and how a restart takes it back. The daemon's `AwakeCheck` keeps
/// the timer, chirps and logs; every decision is made here.
extension AwakeCheckState {
  /// How long the dock waits for the answer once it has asked, in seconds.
  public static let answerWindow: Int64 = 60

  /// What a due check does.
  public enum Step: Hashable, Sendable {
    /// Its time has not come (a timer that fired early, a clock stepped back): wait until then.
    case wait(until: Instant)
    /// Ask now: the check as saved once it has asked, with its answer deadline.
    case ask(AwakeCheckState)
    /// The answer did not come: the wake-up of this occurrence opens again.
    case unanswered(AlarmOccurrence)
  }

  /// The check a wake-up's end starts: one ended by a scan, with `delay` (`[enforcement]
  /// awake_check`) on, asks that long after `now`; any other end starts none.
  public static func after(_ entry: HistoryEntry, delay: Duration, now: Instant) -> AwakeCheckState? {
    guard entry.outcome == .woke || entry.outcome == .upEarly, delay > .zero else { return nil }
    return AwakeCheckState(occurrence: entry.occurrence, askAt: now.adding(delay))
  }

  /// Whether the dock has asked and waits for the answer (the button or `puckctl awake`).
  public var isAsking: Bool { answerBy != nil }

  /// When the check next needs the dock: its answer deadline once it asked, else when it asks.
  public var dueAt: Instant { answerBy ?? askAt }

  /// The check after a restart at `now`: one that had asked asks again from `now`, since
  /// nobody could answer while puckd was down and nobody heard the chirp; one not yet asked
  /// keeps its time.
  public func resumed(now: Instant) -> AwakeCheckState {
    guard isAsking else { return self }
    return AwakeCheckState(occurrence: occurrence, askAt: now)
  }

  /// What the check does at `now`.
  public func step(at now: Instant) -> Step {
    guard now >= dueAt else { return .wait(until: dueAt) }
    guard isAsking else {
      return .ask(
        AwakeCheckState(
          occurrence: occurrence, askAt: askAt, answerBy: now.adding(seconds: Self.answerWindow)))
    }
    return .unanswered(occurrence)
  }
}

extension AwakeCheckState {
  /// How to answer the question, as the log, status and puckctl say it: the dock button only
  /// on a dock that has one (`[button]`).
  public static func howToAnswer(button: Bool) -> String {
    button ? "press the dock button or run 'puckctl awake'" : "run 'puckctl awake'"
  }
}
