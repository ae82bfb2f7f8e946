import PuckCore
import PuckSystem

/// The hour before each alarm (docs/DESIGN.md S12): what is locked now, the check every change
/// of the alarm book passes, what may not be unpaired or removed meanwhile, and the timer that
/// opens each window (the readers poll from then, so a scan of the puck there ends the coming
/// alarm early). The rules are the core's `AlarmLock`; this keeps the corrections still allowed
/// (in memory: a restart only ends them early, the strict side) and the timer.
final class LockWindow {
  private let dock: DockContext
  private var lock = AlarmLock(lockBefore: .zero)
  /// When the next window opens (CLOCK_REALTIME, like the alarms); made last in `init`, as its
  /// handler needs `self`.
  private var opens: TimerHandle!

  init(dock: DockContext) throws(SystemError) {
    self.dock = dock
    opens = try dock.loop.timer(.wallClock) { [unowned self] _ in
      Log.info(
        "an alarm comes near: from now on nothing removes or delays it (lock_before), and within the hour a scan of the puck ends it early"
      )
      self.refresh()
    }
  }

  /// The `lock_before` last read from the config, and a longer one kept after a reload
  /// shortened it, until what it locked has rung.
  private var lastLockBefore: Duration?
  private var kept: (lockBefore: Duration, until: Instant)?

  /// The rules with the `lock_before` in force: the config's, but a reload that shortens it
  /// (root editing `puckd.conf` at 05:59) takes effect only once what the longer one had locked
  /// has rung, so the lock is not lifted through puckd either.
  private var rules: AlarmLock {
    let configured = dock.settings.config.enforcement.lockBefore
    let now = dock.time.instant
    if let last = lastLockBefore, configured < last {
      var longer = lock
      longer.lockBefore = max(last, kept.map { $0.until > now ? $0.lockBefore : .zero } ?? .zero)
      let held = longer.locked(
        in: dock.state.alarms.book, progress: dock.state.guardsFile.record.progress, now: now,
        zone: dock.settings.zone)
      if let until = held.map(\.scheduledAt).max() {
        kept = (longer.lockBefore, until)
        Log.notice(
          "lock_before is shorter now (\(configured.configText)); alarms locked before stay locked until \(dock.settings.describe(until))"
        )
      }
    }
    lastLockBefore = configured
    var rules = lock
    rules.lockBefore = kept.flatMap { $0.until > now ? max($0.lockBefore, configured) : nil } ?? configured
    return rules
  }

  /// The occurrences locked now, soonest first; `early`: only those a scan of the puck may end
  /// now (within an hour, whatever `lock_before`: a scan at bedtime ends no morning alarm).
  func locked(early: Bool = false) -> [AlarmOccurrence] {
    rules.locked(
      in: dock.state.alarms.book, progress: dock.state.guardsFile.record.progress, now: dock.time.instant,
      zone: dock.settings.zone, early: early)
  }

  /// Refuses a change of the alarm book from `before` to `after` that would remove or delay a
  /// locked occurrence, saying until when it is locked and what ends it.
  func permit(from before: AlarmBook, to after: AlarmBook) throws(ControlFailure) {
    let refused = rules.refusal(
      from: before, to: after, progress: dock.state.guardsFile.record.progress, now: dock.time.instant,
      zone: dock.settings.zone)
    if let refused { throw refusal(refused, "nothing may remove or delay it now") }
  }

  /// Notes an accepted change: what it added or changed may be corrected for a little while.
  func accepted(from before: AlarmBook, to after: AlarmBook) {
    lock.lockBefore = dock.settings.config.enforcement.lockBefore
    lock.accepted(
      from: before, to: after, progress: dock.state.guardsFile.record.progress, now: dock.time.instant,
      zone: dock.settings.zone)
  }

  /// Refuses what would leave a locked occurrence that needs the puck with nothing to end it
  /// (the last puck unpaired, the only reader removed); `what` names it.
  func permitLosing(_ what: String) throws(ControlFailure) {
    guard let needing = locked().first(where: \.requiresPuck) else { return }
    throw refusal(needing, "\(what) would leave nothing to end it")
  }

  /// "locked until 06:30: …": the refusal of anything that would remove or delay `occurrence`.
  private func refusal(_ occurrence: AlarmOccurrence, _ why: String) -> ControlFailure {
    ControlFailure(
      .refused,
      "alarm \(occurrence.alarmID) (\(occurrence.displayName)) is locked until it rings "
        + "\(dock.settings.describe(occurrence.scheduledAt)) (lock_before = \(rules.lockBefore.configText)): "
        + "\(why). A scan of the puck ends today's alarm now, if you are already up")
  }

  /// Arms the timer for the next window to open (the earliest of each alarm's next occurrence
  /// less `lock_before`, still ahead), and lets the readers and status know what is locked now.
  func refresh() {
    let lockBefore = rules.lockBefore
    let now = dock.time.instant
    let progress = dock.state.guardsFile.record.progress
    // The lock opens lock_before ahead, the early scan at most an hour ahead: wake at either.
    let leads = Set([lockBefore, min(lockBefore, AlarmLock.earlyScanLimit)])
    let opening = dock.state.alarms.alarms.compactMap { alarm in
      progress.nextFire(of: alarm, now: now, in: dock.settings.zone)
    }.flatMap { next in leads.map { next.adding(.zero - $0) } }.filter { $0 > now }.min()
    if lockBefore > .zero, let opening {
      do {
        try opens.arm(at: opening)
      } catch {
        Log.error("could not arm the lock window's timer: \(error)")
      }
    } else {
      opens.disarm()
    }
    dock.changes.mark([.polling, .status])
  }
}
