import PuckCore
import PuckStorage

/// `guards.json`: the open wake-ups, the history entries journaled until they are appended,
/// how far the schedule has been handled, the missed-alarm backlog and the missed alarms not
/// yet acknowledged (`EnforcementRecord`). The guards and journal are the machine's; they are
/// copied in at every save. `Enforcement` is its one writer (docs/DESIGN.md D12): everything
/// else reads `record` and hands its changes to `Enforcement`.
final class GuardsFile {
  private let files: StateFiles
  private(set) var record = EnforcementRecord()
  /// How many times the record was written (tests count the writes of each flow).
  private(set) var saves = 0

  init(files: StateFiles) {
    self.files = files
  }

  /// Whether the file could not be read and is held.
  var isHeld: Bool { files.unreadable.contains(EnforcementRecord.fileName) }

  /// Loads the record. When it cannot be read, nothing says what was already handled: the
  /// schedule counts from the start of the grace, so an alarm that fell due just before this
  /// start still rings (twice, at worst: the lesser harm).
  func load(now: Instant, grace: Duration) {
    let loaded = files.load(EnforcementRecord.fileName, as: EnforcementRecord.self)
    record = loaded ?? EnforcementRecord()
    if loaded == nil && isHeld {
      record.scheduledThrough = now.adding(.zero - grace)
    }
  }

  /// `guards.json` reads again: what it holds, for the machine to adopt; the missed alarms in
  /// it join the record's. Nil while it still cannot be read.
  func reread() -> EnforcementRecord? {
    guard let loaded = files.reread(EnforcementRecord.fileName, as: EnforcementRecord.self) else {
      return nil
    }
    let disk = loaded.value ?? EnforcementRecord()
    record.mergeMissed(from: disk)
    return disk
  }

  /// Changes the record in memory (saved by the next `save`).
  func apply(_ change: RecordChange) {
    record.apply(change)
  }

  /// Saves the record with the machine's guards and journal. A held file is not written over.
  func save(_ machine: WakeGuardMachine) {
    guard !isHeld else {
      copy(machine)
      Log.warning(
        "open wake-ups not saved: \(EnforcementRecord.fileName) could not be read and is not written over (retried)"
      )
      return
    }
    do {
      try write(machine)
    } catch {
      Log.error("could not save open wake-ups: \(error)")
    }
  }

  /// Applies `change` and saves the record with the machine's guards and journal; on a failed
  /// save (a held file is refused) the change is undone and the error is thrown, so a request
  /// is answered with what is on disk.
  func commit(_ change: RecordChange, saving machine: WakeGuardMachine) throws(StorageError) {
    let before = record
    record.apply(change)
    do {
      try write(machine)
    } catch {
      record = before
      copy(machine)
      throw error
    }
  }

  private func write(_ machine: WakeGuardMachine) throws(StorageError) {
    copy(machine)
    saves += 1
    try files.save(record, name: EnforcementRecord.fileName)
  }

  private func copy(_ machine: WakeGuardMachine) {
    record.guards = machine.guards
    record.pendingHistory = machine.pendingHistory
  }
}

extension EnforcementRecord {
  /// Its file in the state directory.
  static let fileName = "guards.json"
}
