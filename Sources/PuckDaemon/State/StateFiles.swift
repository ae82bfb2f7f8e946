import PuckCore
import PuckStorage

/// The state directory as the daemon uses it: held by a lock for the daemon's lifetime, its
/// documents read one by one, and a file that cannot be read at all held (never written over
/// while the error lasts; docs/DESIGN.md D3, D4) until `StateRetry` reads it again.
final class StateFiles {
  let directory: StateDirectory
  /// Held for the daemon's lifetime: one daemon per state directory.
  private let lock: StateDirectoryLock
  /// State files that could not be read: never written over while that lasts.
  private(set) var unreadable = UnreadableStateFiles()
  /// The unacknowledged problems of the state files, as status shows them. Problems are only
  /// recorded while files are read (start-up, a history request) and cleared by `acknowledge`,
  /// so status uses this copy instead of reading problems.json on every update.
  private(set) var problems: [String] = []
  /// Called when a file becomes held, so the retry timer is armed.
  @Wired("StateFiles.onHeld") var onHeld: () -> Void

  /// Takes the directory's lock before anything reads or writes it: a second daemon must leave
  /// the first one's files alone.
  init(path: String, clock: @escaping @Sendable () -> Instant) throws {
    directory = try StateDirectory(path: path, clock: clock)
    lock = try StateDirectoryLock(directory)
  }

  /// Releases the directory's lock (the clean exit, after the last write).
  func releaseLock() {
    lock.release()
  }

  /// Removes the temporary files of writes a crash interrupted (issue 8 item 9). Runs once at
  /// start, before anything writes: later it would delete a write in progress.
  func removeStaleTemporaryFiles() {
    do {
      let removed = try directory.removeStaleTemporaryFiles().sorted()
      if !removed.isEmpty {
        Log.notice(
          "state: removed \(removed.count) temporary file(s) left by interrupted writes: "
            + removed.joined(separator: ", "))
      }
    } catch {
      Log.error("state: could not remove temporary files left by interrupted writes: \(error)")
    }
  }

  /// Reads document `name`. When it cannot be read at all, it is held, the error is logged,
  /// and its last good copy stands in for it in memory, as for a file that does not decode:
  /// an open wake-up in that copy rings rather than being lost (one closed since that copy was
  /// made may ring again and need another scan, the lesser harm).
  func load<T: VersionedPayload>(_ name: String, as type: T.Type) -> T? {
    do {
      let loaded = try directory.load(name, as: type)
      logProblems(loaded.problems)
      unreadable.remove(name)
      return loaded.value
    } catch {
      hold(name, error: error)
      let copy = (try? directory.loadLastGoodCopy(name, as: type)) ?? nil
      Log.error(
        "state: \(name) cannot be read: \(error); it is not written over until it can be read again"
          + (copy == nil ? "; starting without it" : "; using its last good copy \(name).prev meanwhile"))
      return copy
    }
  }

  /// Reads a held document again: its content when it reads (it is no longer held), nil when
  /// it still cannot be read (it stays held).
  func reread<T: VersionedPayload>(_ name: String, as type: T.Type) -> StateLoad<T>? {
    do {
      let loaded = try directory.load(name, as: type)
      logProblems(loaded.problems)
      unreadable.remove(name)
      return loaded
    } catch {
      unreadable.add(name, error: error)
      return nil
    }
  }

  /// Saves `value` as `name`, refused while `name` is held.
  func save<T: VersionedPayload>(_ value: T, name: String) throws(StorageError) {
    if let refusal = unreadable.refusal(toWrite: name) { throw refusal }
    try directory.save(value, name: name)
  }

  /// Records that `name` cannot be read and arms the retry.
  func hold(_ name: String, error: StorageError) {
    unreadable.add(name, error: error)
    onHeld()
  }

  /// Records that `name` can be read again (or is to be replaced deliberately).
  func release(_ name: String) {
    unreadable.remove(name)
  }

  /// Re-reads the recorded problems.
  func refreshProblems() {
    problems = ((try? directory.problems()) ?? []).map(\.description)
  }

  /// Clears the recorded problems (`puckctl acknowledge`).
  func acknowledgeProblems() throws(StorageError) {
    try directory.acknowledgeProblems()
    refreshProblems()
  }

  func logProblems(_ problems: [StateProblem]) {
    for problem in problems { Log.error("state: \(problem)") }
  }
}
