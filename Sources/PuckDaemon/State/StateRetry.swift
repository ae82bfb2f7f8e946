import PuckCore
import PuckStorage
import PuckSystem

/// Tries again what could not be done with the state files: a held file's read, journaled
/// history, a slice of missed alarms. Every 30 s while something waits, and before requests
/// from root or the `puckalarm` group (docs/DESIGN.md D4, D5).
final class StateRetry {
  /// How long after a failure the state files are tried again.
  static let interval = Duration.seconds(30)

  private let dock: DockContext
  private let enforcement: Enforcement
  private let schedule: ScheduleKeeper
  private let missed: MissedRecorder
  /// CLOCK_MONOTONIC; made last in `init`, as its handler needs `self`.
  private var timer: TimerHandle!
  /// When a request last made the held state files be read again (CLOCK_MONOTONIC).
  private var lastRequested: MonotonicInstant?

  init(
    dock: DockContext, enforcement: Enforcement, schedule: ScheduleKeeper,
    missed: MissedRecorder
  ) throws(SystemError) {
    self.dock = dock
    self.enforcement = enforcement
    self.schedule = schedule
    self.missed = missed
    timer = try dock.loop.timer(.monotonic) { [unowned self] _ in self.retry() }
  }

  /// Whether a file is held or a history entry waits.
  var isNeeded: Bool {
    !dock.state.files.unreadable.isEmpty || enforcement.historyIsWaiting || missed.hasBacklog
  }

  /// Retries before a request from root or the group. A request that changes something, or
  /// reads history (which should show the entries waiting to be recorded), always retries;
  /// `status` and `alarm list` do so at most once per interval, so that a member polling
  /// status cannot keep the loop re-reading a failing card.
  func retry(before command: CommandName) {
    guard isNeeded else { return }
    let now = dock.time.monotonicNow()
    let polled: Bool
    switch command {
    case .status, .alarmList: polled = true
    default: polled = false
    }
    if polled, let last = lastRequested, now - last < Self.interval { return }
    lastRequested = now
    retry()
  }

  /// Tries the held files and the waiting history entries again.
  func retry() {
    guard isNeeded else { return }
    if dock.state.guardsFile.isHeld, let disk = dock.state.guardsFile.reread() {
      enforcement.adopt(disk)
      missed.scheduleSlice()
    }
    if dock.state.alarms.isHeld, dock.state.alarms.reread() { schedule.refresh() }
    if dock.state.pairing.isHeld { dock.state.pairing.load() }
    if enforcement.historyIsWaiting { enforcement.flushPendingHistory() }
    // A slice of missed alarms that could not be recorded is tried again with the rest.
    missed.scheduleSlice()
    dock.state.files.refreshProblems()
    arm()
    dock.changes.mark(.status)
  }

  /// Arms the timer while there is something to retry.
  func arm() {
    guard isNeeded else {
      timer.disarm()
      return
    }
    do {
      try timer.arm(after: Self.interval)
    } catch {
      Log.error("state retry timer: \(error)")
    }
  }
}
