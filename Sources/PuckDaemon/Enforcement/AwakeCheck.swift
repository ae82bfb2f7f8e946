import PuckCore
import PuckSystem

/// The wake-up check (docs/DESIGN.md W17): `[enforcement] awake_check` after a wake-up ended
/// with a scan, the dock chirps (`BeatPattern.awakeCheck`, on the buzzer and the speaker:
/// `Ringer.cue`) and waits a minute for the dock button or `puckctl awake`; without an answer
/// the wake-up opens again and rings until the next scan. The waiting check lives in
/// `guards.json`, so a restart (or a crash) in between asks all the same. Both endings are
/// recorded in history. When to ask, what a due check does and what a restart keeps are the
/// core's rules (`AwakeCheckState.step`); this is their shell: the timer, the chirp, the log
/// and the saves.
///
/// A check starts in the write that closes the wake-up, and an unanswered one ends in the write
/// that opens it again: the check is put in or taken out of the record in memory, and the
/// machine's `.persistGuards` saves both. With a save of its own, a kill between the two saves
/// left `guards.json` with neither the wake-up nor its check, and whoever went back to bed was
/// not woken again (`AwakeCheckKillTests`).
final class AwakeCheck {
  private let dock: DockContext
  private let enforcement: Enforcement
  private let ringer: Ringer
  /// When to ask, then until when to wait (CLOCK_REALTIME, like the alarms); made last in
  /// `init`, as its handler needs `self`.
  private var timer: TimerHandle!

  init(dock: DockContext, enforcement: Enforcement, ringer: Ringer) throws(SystemError) {
    self.dock = dock
    self.enforcement = enforcement
    self.ringer = ringer
    timer = try dock.loop.timer(.wallClock) { [unowned self] _ in self.due() }
  }

  /// The check waiting, as saved.
  var state: AwakeCheckState? { dock.state.guardsFile.record.awakeCheck }

  /// After start: the saved check as a restart takes it back (`AwakeCheckState.resumed`).
  func resume() {
    guard let check = state else { return }
    let resumed = check.resumed(now: dock.time.instant)
    if resumed != check { enforcement.record(.awakeCheck(resumed)) }
    arm(for: resumed)
  }

  /// A wake-up is closing, before the save that closes it: a scan starts a check (when
  /// enabled), saved by that same write.
  func closing(_ entry: HistoryEntry) -> [RecordChange] {
    let delay = dock.settings.config.enforcement.awakeCheck
    guard let check = AwakeCheckState.after(entry, delay: delay, now: dock.time.instant) else { return [] }
    Log.info("wake-up check at \(dock.settings.describe(check.askAt)) (awake_check = \(delay.configText))")
    arm(for: check)
    return [.awakeCheck(check)]
  }

  /// The dock button or `puckctl awake`: true when the dock was waiting for the answer. An
  /// answer changes no wake-up, so the check's end is its one save, made before the answer is
  /// recorded: a crash between loses that record, and never asks again someone who answered.
  func confirm() -> Bool {
    guard let check = state, check.isAsking else { return false }
    timer.disarm()
    enforcement.handle(.awakeConfirmed(check.occurrence), with: [.awakeCheck(nil)])
    dock.changes.mark(.status)
    return true
  }

  private func due() {
    guard let check = state else { return }
    switch check.step(at: dock.time.instant) {
    case .wait:
      return arm(for: check)
    case .ask(let asking):
      enforcement.record(.awakeCheck(asking))
      ringer.cue(.awakeCheck)
      Log.notice(
        "wake-up check for \(check.occurrence.displayName): "
          + "\(AwakeCheckState.howToAnswer(button: dock.settings.config.button != nil)) "
          + "within \(AwakeCheckState.answerWindow) s, or it rings again")
      arm(for: asking)
    case .unanswered(let occurrence):
      // Saved with the reopened wake-up (or alone, when the alarm's guard was already open and
      // ringing, a later occurrence, W10, and nothing reopens).
      enforcement.handle(.awakeUnanswered(occurrence), with: [.awakeCheck(nil)])
    }
    dock.changes.mark(.status)
  }

  private func arm(for check: AwakeCheckState) {
    do {
      try timer.arm(at: check.dueAt)
    } catch {
      Log.error("could not arm the wake-up check's timer: \(error)")
    }
  }
}
