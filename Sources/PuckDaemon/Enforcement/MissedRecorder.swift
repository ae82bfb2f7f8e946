import PuckCore
import PuckStorage
import PuckSystem

/// Records the missed-alarm backlog in history, a bounded slice per loop turn, so the loop
/// (and the watchdog) never waits long behind the catch-up after a long downtime
/// (docs/DESIGN.md S6).
final class MissedRecorder {
  private let dock: DockContext
  /// Saves the guards file with the machine's guards.
  private let enforcement: Enforcement
  /// A `.recordMissed` message is waiting in the loop's inbox.
  private var sliceQueued = false
  /// Called when a slice could not be written (the state retry arms).
  @Wired("MissedRecorder.onFailure") var onFailure: () -> Void

  /// Missed occurrences recorded per slice: one history write and one fsync each, a few
  /// milliseconds.
  static let slice = 256

  init(dock: DockContext, enforcement: Enforcement) {
    self.dock = dock
    self.enforcement = enforcement
  }

  /// Whether missed occurrences wait to be recorded.
  var hasBacklog: Bool { !dock.state.guardsFile.record.missedBacklog.isEmpty }

  /// Queues the next slice behind whatever the loop has to do.
  func scheduleSlice() {
    guard hasBacklog, !sliceQueued else { return }
    sliceQueued = true
    dock.loop.inbox.post(.recordMissed)
  }

  /// The queued `.recordMissed` message arrived.
  func sliceDue() {
    sliceQueued = false
    recordSlice()
  }

  /// Records the oldest slice of missed occurrences in history (one write, one fsync), then
  /// saves the backlog past them. A kill between the two writes leaves the slice in history and
  /// in the backlog; the entries already at the end of history are not written again.
  func recordSlice() {
    guard hasBacklog else { return }
    let zone = dock.settings.zone
    var backlog = dock.state.guardsFile.record.missedBacklog
    let occurrences = backlog.take(Self.slice, in: zone)
    let recordedAt = dock.time.instant
    let written: Set<MissedKey>
    do {
      // Twice the slice: a wake-up closed after the interrupted slice may follow it.
      written = Set(
        try dock.state.journal.log.last(2 * Self.slice).filter { $0.outcome == .missed }.map(MissedKey.init))
    } catch {
      Log.error("could not read the end of the history: \(error); missed alarms are recorded later")
      onFailure()
      return
    }
    let entries = occurrences.filter { !written.contains(MissedKey($0)) }.map {
      HistoryEntry(
        outcome: .missed, occurrence: $0, openedAt: nil, closedAt: recordedAt, bypassCount: 0, rings: 0)
    }
    do {
      try dock.state.journal.log.append(contentsOf: entries)
    } catch {
      // Left in the backlog; the state retry timer (or the next processDue) tries again.
      Log.error("could not record missed alarms: \(error)")
      onFailure()
      return
    }
    enforcement.record(.missedRecorded(backlog: backlog, occurrences: occurrences))
    if let first = occurrences.first, let last = occurrences.last {
      Log.warning(
        "\(occurrences.count) alarm occurrence(s) from \(dock.settings.describe(first.scheduledAt)) to "
          + "\(dock.settings.describe(last.scheduledAt)) were MISSED (puckd was not running)")
    }
    // A one-shot that was missed is over.
    dock.state.alarms.retire(occurrences.filter(\.isOneShot).map(\.alarmID))
    if backlog.isEmpty {
      Log.notice(
        "catch-up done: \(dock.state.guardsFile.record.unacknowledgedMissedCount) missed alarm(s) to acknowledge"
      )
    }
    scheduleSlice()
    dock.changes.mark(.status)
  }
}

/// A missed occurrence as history identifies it, to find the ones already written.
private struct MissedKey: Hashable {
  let alarmID: AlarmID
  let scheduledAt: Instant

  init(_ occurrence: AlarmOccurrence) {
    alarmID = occurrence.alarmID
    scheduledAt = occurrence.scheduledAt
  }

  init(_ entry: HistoryEntry) {
    self.init(entry.occurrence)
  }
}
