import PuckCore
import PuckSystem

/// The wake-up check (docs/DESIGN.md W17): `[enforcement] awake_check` after a wake-up ended
/// with a scan, the dock chirps (`BeatPattern.awakeCheck`) and waits `answerWindow` for the dock
/// button or `puckctl awake`; without an answer the wake-up opens again and rings until the
/// next scan. The waiting check lives in `guards.json`, so a restart (or a crash) in between
/// asks all the same. Both endings are recorded in history.
///
/// A check starts in the write that closes the wake-up, and an unanswered one ends in the write
/// that opens it again: the check is put in or taken out of the record in memory, and the
/// machine's `.persistGuards` saves both. With a save of its own, a kill between the two saves
/// left `guards.json` with neither the wake-up nor its check, and whoever went back to bed was
/// not woken again (`AwakeCheckKillTests`).
final class AwakeCheck {
  /// How long the dock waits for the answer once it has asked.
  static let answerWindow: Int64 = 60

  private let dock: DockContext
  private let enforcement: Enforcement
  private let lines: DockLines
  /// When to ask, then until when to wait (CLOCK_REALTIME, like the alarms); made last in
  /// `init`, as its handler needs `self`.
  private var timer: TimerHandle!

  init(dock: DockContext, enforcement: Enforcement, lines: DockLines) throws(SystemError) {
    self.dock = dock
    self.enforcement = enforcement
    self.lines = lines
    timer = try dock.loop.timer(.wallClock) { [unowned self] _ in self.due() }
  }

  /// The check waiting, as saved.
  var state: AwakeCheckState? { dock.state.guardsFile.record.awakeCheck }

  /// After start: a check that had asked asks again from now (the answer may have come while
  /// puckd was down, and nobody heard the chirp); one not yet asked keeps its time.
  func resume() {
    guard var check = state else { return }
    if check.answerBy != nil {
      check.answerBy = nil
      check.askAt = dock.time.instant
      store(check)
    }
    arm()
  }

  /// A wake-up is closing, before the save that closes it: a scan starts a check (when
  /// enabled), saved by that same write.
  func closing(_ entry: HistoryEntry) -> [RecordChange] {
    let delay = dock.settings.config.enforcement.awakeCheck
    guard entry.outcome == .woke, delay > .zero else { return [] }
    let check = AwakeCheckState(occurrence: entry.occurrence, askAt: dock.time.instant.adding(delay))
    Log.info("wake-up check at \(dock.settings.describe(check.askAt)) (awake_check = \(delay.configText))")
    arm(for: check)
    return [.awakeCheck(check)]
  }

  /// The dock button or `puckctl awake`: true when the dock was waiting for the answer. An
  /// answer changes no wake-up, so the check's end is its one save, made before the answer is
  /// recorded: a crash between loses that record, and never asks again someone who answered.
  func confirm() -> Bool {
    guard let check = state, check.answerBy != nil else { return false }
    timer.disarm()
    enforcement.handle(.awakeConfirmed(check.occurrence), with: [.awakeCheck(nil)])
    dock.changes.mark(.status)
    return true
  }

  private func due() {
    guard var check = state else { return }
    let now = dock.time.instant
    if let answerBy = check.answerBy {
      guard now >= answerBy else { return arm() }
      // Saved with the reopened wake-up (or alone, when the alarm's guard was already open and
      // ringing, a later occurrence, W10, and nothing reopens).
      enforcement.handle(.awakeUnanswered(check.occurrence), with: [.awakeCheck(nil)])
    } else {
      guard now >= check.askAt else { return arm() }
      check.answerBy = now.adding(seconds: Self.answerWindow)
      store(check)
      lines.buzzer.chirp(.awakeCheck)
      Log.notice(
        "wake-up check for \(check.occurrence.displayName): press the dock button or run 'puckctl awake' "
          + "within \(Self.answerWindow) s, or it rings again")
      arm()
    }
    dock.changes.mark(.status)
  }

  private func arm() {
    arm(for: state)
  }

  private func arm(for check: AwakeCheckState?) {
    guard let check else { return timer.disarm() }
    do {
      try timer.arm(at: check.answerBy ?? check.askAt)
    } catch {
      Log.error("could not arm the wake-up check's timer: \(error)")
    }
  }

  private func store(_ check: AwakeCheckState?) {
    enforcement.record(.awakeCheck(check))
  }
}
