import PuckCore
import PuckStorage

/// `history.jsonl`: closed wake-ups and missed alarms, appended. A closed guard's entry is
/// journaled in `guards.json` first (the machine's `pendingHistory`) and leaves the journal
/// once appended (docs/DESIGN.md D5); a failed append is retried and shown in status.
final class HistoryJournal {
  let log: HistoryLog<HistoryEntry>
  /// Why the last append failed, while closed wake-ups wait in the journal.
  private(set) var failure: String?

  init(files: StateFiles) {
    log = HistoryLog(directory: files.directory)
  }

  /// Appends the journaled entries of `machine`, oldest first, stopping at the first failure
  /// (the rest stay journaled). An entry that may already be in history, because a crash or a
  /// failed write came between its append and the save that clears it, is looked for first,
  /// so it is never recorded twice; only `fresh`, just closed and never tried, is appended
  /// without looking. Returns whether any entry left the journal (then it is to be saved).
  func flush(_ machine: inout WakeGuardMachine, fresh: HistoryEntry? = nil) -> Bool {
    var recorded = false
    for entry in machine.pendingHistory {
      do {
        let alreadyRecorded =
          entry == fresh
          ? false
          : try log.contains(entry) {
            // Entries are appended in closing order; a day of slack covers a clock step.
            $0.closedAt < entry.closedAt.adding(seconds: -86_400)
          }
        if !alreadyRecorded { try log.append(entry) }
      } catch {
        failure = "\(error)"
        Log.error(
          "history: \(machine.pendingHistory.count) closed wake-up(s) not yet recorded in history: \(error); "
            + "kept in \(EnforcementRecord.fileName) and retried")
        break
      }
      recorded = machine.historyRecorded(entry) || recorded
    }
    if machine.pendingHistory.isEmpty, failure != nil {
      failure = nil
      Log.notice("history: the waiting wake-up entries are recorded")
    }
    return recorded
  }

  /// Appends an entry that closes no wake-up (a missed alarm, a wake-up check answer): not journaled.
  func appendAlone(_ entry: HistoryEntry) {
    do {
      try log.append(entry)
    } catch {
      Log.error("could not record history: \(error)")
    }
  }
}
