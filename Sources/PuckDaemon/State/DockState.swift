import PuckCore
import PuckStorage

/// The state directory and the documents in it, built once and handed as one value to the
/// components that read or write them (docs/DESIGN.md §1.1, D1–D5).
struct DockState {
  /// The directory, its lock and the files held because they cannot be read.
  let files: StateFiles
  /// `pairing.json` (root-only).
  let pairing: PairingStore
  /// `alarms.json`.
  let alarms: AlarmStore
  /// `guards.json`: the open wake-ups and the history not yet appended.
  let guardsFile: GuardsFile
  /// `history.jsonl`.
  let journal: HistoryJournal
  /// `reader-NAME.key`: the enrolled remote readers (root-only).
  let readerKeys: ReaderKeyFiles

  /// Takes the directory's lock before anything reads or writes it: a second daemon must leave
  /// the first one's files alone.
  init(path: String, clock: @escaping @Sendable () -> Instant) throws {
    files = try StateFiles(path: path, clock: clock)
    pairing = PairingStore(files: files)
    alarms = AlarmStore(files: files)
    guardsFile = GuardsFile(files: files)
    journal = HistoryJournal(files: files)
    readerKeys = ReaderKeyFiles(directory: files.directory)
  }

  /// Reads each file on its own, the open guards first: whatever else fails to read, an open
  /// wake-up still rings (docs/DESIGN.md D4).
  func load(now: Instant, grace: Duration) {
    files.removeStaleTemporaryFiles()
    guardsFile.load(now: now, grace: grace)
    alarms.load()
    pairing.load()
    files.refreshProblems()
  }
}
