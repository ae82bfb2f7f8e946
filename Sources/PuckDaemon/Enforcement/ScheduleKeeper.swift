import Glibc
import PuckCore
import PuckStorage
import PuckSystem

/// When alarms ring: catches up with what fell due (docs/DESIGN.md S4–S8), hands each due
/// occurrence and retry to `Enforcement`, records missed alarms in bounded slices, and keeps
/// the wall timer armed for the next alarm or retry and the pre-flight check `check_before` it.
final class ScheduleKeeper {
  private let dock: DockContext
  private let enforcement: Enforcement
  private let missed: MissedRecorder
  /// The hour before each alarm, whose opening timer follows the schedule.
  private let lock: LockWindow
  /// Next alarm or retry, on CLOCK_REALTIME with CANCEL_ON_SET. Both timers are made last in
  /// `init`, as their handlers need `self`.
  private var wallTimer: TimerHandle!
  /// The pre-flight check `[enforcement] check_before` ahead of each alarm (CLOCK_REALTIME).
  private var checkTimer: TimerHandle!
  /// The alarm instant the last pre-flight check was for: one check per coming alarm.
  private var checkedFor: Instant?
  /// The pre-flight check is due for the coming alarm.
  @Wired("ScheduleKeeper.checkDue") var checkDue: () -> Void

  init(
    dock: DockContext, enforcement: Enforcement,
    missed: MissedRecorder, lock: LockWindow
  ) throws(SystemError) {
    self.dock = dock
    self.enforcement = enforcement
    self.missed = missed
    self.lock = lock
    // A step of the wall clock is handed to `Enforcement` first.
    wallTimer = try dock.loop.timer(.wallClock) { [unowned self] firing in
      if firing == .clockStepped { self.enforcement.clockStepped() }
      self.processDue()
    }
    checkTimer = try dock.loop.timer(.wallClock) { [unowned self] firing in
      guard firing == .expired else { return }
      self.checkedFor = self.nextAlarm()?.at
      self.checkDue()
    }
  }

  /// Rings every alarm occurrence that fell due up to now (the newest of each alarm, within
  /// the grace), queues the older ones to be recorded as missed, rings due retries, and re-arms
  /// the wall timer. Runs on the wall timer, on a clock step, at start, and before any alarm
  /// change (so a change never hides an occurrence that was just due).
  ///
  /// Its cost does not grow with the downtime: the missed occurrences are not enumerated here
  /// but saved as ranges and recorded by `MissedRecorder`, a bounded batch per loop turn.
  func processDue() {
    let now = dock.time.instant
    if enforcement.nextRetry.map({ $0 <= now }) ?? false {
      enforcement.handle(.retryDue)
    }
    let record = dock.state.guardsFile.record
    var progress = record.progress
    let catchUp = progress.catchUp(
      dock.state.alarms.alarms, now: now,
      policy: MissedAlarmPolicy(grace: dock.settings.config.enforcement.missedGrace),
      clockSynchronized: dock.time.isSynchronized(), in: dock.settings.zone)
    if catchUp.waitingForClock {
      Log.warning(
        "the clock (\(dock.settings.describe(now))) is behind alarms already handled "
          + "(\(record.scheduledThrough.map(dock.settings.describe) ?? "?")); waiting for it to be set")
    }
    if catchUp.rescheduled {
      Log.warning("the synchronised clock is more than an hour behind the schedule; rescheduling from now")
    }
    // The handled points move in the same write as the last ring's guard, never before a
    // guard: a kill before that write finds the same occurrences again, and the machine takes
    // one whose guard is open as a duplicate. Saving the points first could lose a ring; saving
    // them after would write the file twice for one ring.
    let moved = progress != dock.state.guardsFile.record.progress || !catchUp.missed.isEmpty
    let handled: [RecordChange] = moved ? [.scheduleHandled(progress, missed: catchUp.missed)] : []
    for (index, due) in catchUp.ring.enumerated() {
      dock.state.alarms.consumeSkip(of: due.alarm.id, on: due.occurrence.date)
      enforcement.handle(
        .alarmDue(AlarmOccurrence(alarm: due.alarm, scheduledAt: due.occurrence.instant)),
        with: index == catchUp.ring.count - 1 ? handled : [])
    }
    if catchUp.ring.isEmpty, let change = handled.first { enforcement.record(change) }
    missed.scheduleSlice()
    refresh()
  }

  /// When `alarm` rings next: the one answer the timer, status, list, add and skip all use.
  func nextFire(of alarm: Alarm) -> Instant? {
    dock.state.guardsFile.record.progress.nextFire(of: alarm, now: dock.time.instant, in: dock.settings.zone)
  }

  /// The next alarm occurrence after the handled points.
  func nextAlarm() -> (alarm: Alarm, at: Instant)? {
    dock.state.guardsFile.record.progress.nextAlarm(
      among: dock.state.alarms.alarms, now: dock.time.instant, in: dock.settings.zone)
  }

  /// A new or enabled alarm counts from now, even when the clock is behind the handled point
  /// (stepped back): saved before the alarm itself, so a kill between leaves no alarm that
  /// waits for a point it never had.
  func startCounting(_ id: AlarmID) {
    var progress = dock.state.guardsFile.record.progress
    guard progress.startCounting(id, at: dock.time.instant) else { return }
    enforcement.record(.scheduleHandled(progress))
  }

  /// The deadline the wall timer must hold: the earliest of the next alarm and the next retry.
  private func nextDeadline(next: (alarm: Alarm, at: Instant)?) -> Instant? {
    [next?.at, enforcement.nextRetry].compactMap { $0 }.min()
  }

  /// What is wrong with the wall timer as the kernel holds it now (`timerfd_gettime`), against
  /// the deadline computed afresh from `next` (the caller's `nextAlarm()`); nil when it holds that deadline, when nothing is due, or
  /// when the deadline is already here (its handler is about to run). Status trusts this, not
  /// the memory of an `arm` that returned (docs/DESIGN.md R5).
  func timerProblem(next: (alarm: Alarm, at: Instant)?) -> String? {
    guard let expected = nextDeadline(next: next), expected > dock.time.instant else { return nil }
    guard let held = wallTimer.readBack() else {
      return "not armed in the kernel (the next deadline is \(dock.settings.describe(expected)))"
    }
    // Armed on whole seconds; the read-back is now + time left, so round it to the second.
    let heldSeconds = (held + .milliseconds(500)).components.seconds
    guard heldSeconds != expected.unixSeconds else { return nil }
    return "armed for \(dock.settings.describe(Instant(unixSeconds: heldSeconds))), "
      + "not the next deadline \(dock.settings.describe(expected))"
  }

  /// Arms the wall timer for the earliest of the next alarm and the next retry, and the
  /// pre-flight check `check_before` ahead of the alarm; an alarm closer than that (just added,
  /// or at start) is checked at once, once.
  func refresh() {
    let next = nextAlarm()
    let lead = Int64(dock.settings.config.enforcement.checkBefore.components.seconds)
    if let at = next?.at, at.seconds(since: dock.time.instant) > lead {
      try? checkTimer.arm(at: at.adding(seconds: -lead))
    } else {
      checkTimer.disarm()
      if let at = next?.at, checkedFor != at {
        checkedFor = at
        checkDue()
      }
    }
    if let earliest = nextDeadline(next: next) {
      do {
        try wallTimer.arm(at: earliest)
      } catch  where error.code == ECANCELED {
        // The clock was stepped and the timer not yet read: the kernel armed it all the same
        // and consumed the notice, so the wall timer's handler will never see this step. Handle
        // it from the loop (not here: processDue comes back to this function).
        dock.loop.inbox.post(.clockStepped)
      } catch {
        Log.error("could not arm the alarm timer: \(error)")
      }
    } else {
      wallTimer.disarm()
    }
    lock.refresh()
  }
}
