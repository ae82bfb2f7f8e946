import PuckCore
import PuckStorage
import PuckSystem

/// How long after a failed read or history append the state files are tried again (they are
/// also tried at every request from root or the `puckalarm` group).
private let stateRetryInterval = Duration.seconds(30)

extension Daemon {
  // MARK: - Start-up

  /// Removes the temporary files of writes a crash interrupted (issue 8 item 9). Runs once at
  /// start, before anything writes: later it would delete a write in progress.
  func removeStaleTemporaryFiles() {
    do {
      let removed = try state.removeStaleTemporaryFiles().sorted()
      if !removed.isEmpty {
        Log.notice(
          "state: removed \(removed.count) temporary file(s) left by interrupted writes: "
            + removed.joined(separator: ", "))
      }
    } catch {
      Log.error("state: could not remove temporary files left by interrupted writes: \(error)")
    }
  }

  /// Reads document `name`. When it cannot be read at all, it is held (never written over
  /// while the error lasts), the error is logged, and its last good copy stands in for it in
  /// memory, as for a file that does not decode (docs/DESIGN.md D3, D4): an open wake-up in that copy
  /// rings rather than being lost (one closed since that copy was made may ring again and need
  /// another scan, the lesser harm).
  func loadDocument<T: VersionedPayload>(_ name: String, as type: T.Type) -> T? {
    do {
      let loaded = try state.load(name, as: type)
      for problem in loaded.problems { Log.error("state: \(problem)") }
      unreadableFiles.remove(name)
      return loaded.value
    } catch {
      unreadableFiles.add(name, error: error)
      let copy = (try? state.loadLastGoodCopy(name, as: type)) ?? nil
      Log.error(
        "state: \(name) cannot be read: \(error); it is not written over until it can be read again"
          + (copy == nil ? "; starting without it" : "; using its last good copy \(name).prev meanwhile"))
      armStateRetry()
      return copy
    }
  }

  // MARK: - Saves and retries

  /// Stores the pairing, unless `pairing.json` could not be read (then pairing would silently
  /// replace a pairing nobody has seen); the read is tried once more first.
  func savePairing(_ tag: PairedTag) throws(StorageError) {
    if unreadableFiles.contains(PairingFile.name) { loadPairing() }
    if let refusal = unreadableFiles.refusal(toWrite: PairingFile.name) { throw refusal }
    try pairingFile.save(tag)
  }

  /// Unpairs, under the same rule as `savePairing`.
  func removePairing() throws(StorageError) {
    if unreadableFiles.contains(PairingFile.name) { loadPairing() }
    if let refusal = unreadableFiles.refusal(toWrite: PairingFile.name) { throw refusal }
    try pairingFile.remove()
  }

  /// Whether a file is held or a history entry waits: then `retryStateFiles` has work.
  var stateNeedsRetry: Bool {
    !unreadableFiles.isEmpty || !machine.pendingHistory.isEmpty || !record.missedBacklog.isEmpty
  }

  /// Retries before a request from root or the group. A request that changes something, or
  /// reads history (which should show the entries waiting to be recorded), always retries;
  /// `status` and `alarm list` do so at most once per retry interval, so that a member polling
  /// status cannot keep the loop re-reading a failing card.
  func retryStateFiles(before command: ControlCommand) {
    guard stateNeedsRetry else { return }
    let clock = SystemClock.monotonic.now()
    let polled: Bool
    switch command {
    case .status, .alarmList: polled = true
    default: polled = false
    }
    if polled, let last = lastRequestedStateRetry, clock - last < stateRetryInterval { return }
    lastRequestedStateRetry = clock
    retryStateFiles()
  }

  /// Tries the held files and the waiting history entries again.
  func retryStateFiles() {
    guard stateNeedsRetry else { return }
    if unreadableFiles.contains(EnforcementRecord.fileName) { retryGuardsFile() }
    if unreadableFiles.contains(AlarmBook.fileName) { retryAlarmsFile() }
    if unreadableFiles.contains(PairingFile.name) { loadPairing() }
    if !machine.pendingHistory.isEmpty { flushPendingHistory() }
    // A slice of missed alarms that could not be recorded is tried again with the rest.
    scheduleMissedSlice()
    refreshStateProblems()
    armStateRetry()
    updateStatus()
  }

  /// Arms the retry timer while there is something to retry.
  func armStateRetry() {
    guard stateNeedsRetry else {
      stateRetryTimer.disarm()
      return
    }
    do {
      try stateRetryTimer.arm(after: stateRetryInterval)
    } catch {
      Log.error("state retry timer: \(error)")
    }
  }

  /// `guards.json` reads again: what it holds joins what this run knows (guards this run did
  /// not see are adopted and resumed, except those closed meanwhile), then it is saved.
  private func retryGuardsFile() {
    let loaded: StateLoad<EnforcementRecord>
    do {
      loaded = try state.load(EnforcementRecord.fileName, as: EnforcementRecord.self)
    } catch {
      unreadableFiles.add(EnforcementRecord.fileName, error: error)
      return
    }
    for problem in loaded.problems { Log.error("state: \(problem)") }
    unreadableFiles.remove(EnforcementRecord.fileName)
    let disk = loaded.value ?? EnforcementRecord()
    let adopted = machine.adopt(disk.guards, pendingHistory: disk.pendingHistory, except: closedOccurrences)
    record.mergeMissed(from: disk)
    Log.notice(
      "state: \(EnforcementRecord.fileName) can be read again; saving the open wake-ups"
        + (adopted ? " (with those found in it)" : ""))
    saveRecord()
    scheduleMissedSlice()
    if adopted {
      handle(.daemonStarted)
      if !machine.pendingHistory.isEmpty { flushPendingHistory() }
    }
  }

  /// `alarms.json` reads again: its alarms replace the stand-in (alarm changes were refused
  /// meanwhile, so nothing made in this run is lost).
  private func retryAlarmsFile() {
    do {
      let loaded = try state.load(AlarmBook.fileName, as: AlarmBook.self)
      for problem in loaded.problems { Log.error("state: \(problem)") }
      unreadableFiles.remove(AlarmBook.fileName)
      book = loaded.value ?? AlarmBook()
      Log.notice("state: \(AlarmBook.fileName) can be read again; \(book.alarms.count) alarm(s) loaded")
      refreshSchedule()
    } catch {
      unreadableFiles.add(AlarmBook.fileName, error: error)
    }
  }

  // MARK: - History

  /// Performs `.recordHistory`. A closed guard's entry is journaled in the guards file; it is
  /// appended (with any older waiting entries first, in order) and then leaves the journal. A
  /// missed alarm's entry is appended directly.
  func recordHistory(_ entry: HistoryEntry) {
    guard machine.pendingHistory.contains(entry) else {
      // Missed alarms are not journaled; a closing entry not pending any more was appended by
      // an earlier flush in this same round of effects.
      guard entry.outcome == .missed else { return }
      do {
        try history.append(entry)
      } catch {
        Log.error("could not record history: \(error)")
      }
      return
    }
    closedOccurrences.insert(entry.occurrence)
    flushPendingHistory(fresh: entry)
  }

  /// Appends the journaled entries, oldest first, stopping at the first failure (the rest stay
  /// journaled, status says so, and the retry timer comes back). An entry that may already be
  /// in history, because a crash or a failed write came between its append and the save that
  /// clears it, is looked for first, so it is never recorded twice; only `fresh`, just closed
  /// and never tried, is appended without looking.
  func flushPendingHistory(fresh: HistoryEntry? = nil) {
    var recorded = false
    for entry in machine.pendingHistory {
      do {
        let alreadyRecorded =
          entry == fresh
          ? false
          : try history.contains(entry) {
            // Entries are appended in closing order; a day of slack covers a clock step.
            $0.closedAt < entry.closedAt.adding(seconds: -86_400)
          }
        if !alreadyRecorded { try history.append(entry) }
      } catch {
        historyFailure = "\(error)"
        Log.error(
          "history: \(machine.pendingHistory.count) closed wake-up(s) not yet recorded in history: \(error); "
            + "kept in \(EnforcementRecord.fileName) and retried")
        break
      }
      recorded = machine.historyRecorded(entry) || recorded
    }
    if machine.pendingHistory.isEmpty, historyFailure != nil {
      historyFailure = nil
      Log.notice("history: the waiting wake-up entries are recorded")
    }
    if recorded { saveRecord() }
    armStateRetry()
  }
}
