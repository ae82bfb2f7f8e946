import PuckCore
import PuckStorage

/// The paired tag and its root-only file (docs/DESIGN.md §5). A refused file (owner, mode,
/// type) is replaced by pairing again, deliberately; a file that could not be read may hold a
/// good pairing and is not written over until it reads.
final class PairingStore {
  private let file: PairingFile
  private let files: StateFiles
  private(set) var tag: TagUID?
  /// Why the pairing file was refused or could not be read.
  private(set) var problem: String?

  init(files: StateFiles) {
    self.files = files
    file = PairingFile(directory: files.directory)
  }

  /// Whether the file could not be read and is held.
  var isHeld: Bool { files.unreadable.contains(PairingFile.name) }

  func load() {
    do {
      let loaded = try file.load()
      tag = loaded.value?.uid
      problem = nil
      files.release(PairingFile.name)
      files.logProblems(loaded.problems)
      if let tag { Log.info("paired tag \(tag.masked)") }
    } catch {
      tag = nil
      problem = "\(error)"
      Log.error("\(error)")
      if case .fileSystem = error {
        files.hold(PairingFile.name, error: error)
      } else {
        files.release(PairingFile.name)
      }
    }
  }

  /// The pre-flight check of the pairing: the file read back from disk through the same checks
  /// as at start, and the tag it holds against the one this daemon enforces. Changes nothing:
  /// a loosened or swapped file is reported, and the tag in memory goes on ending wake-ups.
  func readBack() -> (ok: Bool, detail: String) {
    switch file.readBack() {
    case .failure(let error):
      return (
        false, "\(error)\(tag.map { " — the tag paired earlier (\($0.masked)) still ends a wake-up" } ?? "")"
      )
    case .success(nil):
      return tag == nil
        ? (false, "no tag paired — run: sudo puckctl pair")
        : (false, "\(PairingFile.name) is gone from disk; pair again: sudo puckctl pair")
    case .success(let onDisk?):
      guard let tag else {
        return (
          false,
          "\(PairingFile.name) holds \(onDisk.uid.masked), which this puckd has not loaded (restart it)"
        )
      }
      guard onDisk.uid == tag else {
        return (false, "\(PairingFile.name) now holds \(onDisk.uid.masked), not the paired tag \(tag.masked)")
      }
      return (true, "\(PairingFile.name) reads back \(tag.masked), root-only")
    }
  }

  /// Stores the pairing, unless the file could not be read (then pairing would silently
  /// replace a pairing nobody has seen); the read is tried once more first.
  func save(_ paired: PairedTag) throws(StorageError) {
    try checkWritable()
    try file.save(paired)
    tag = paired.uid
    problem = nil
  }

  /// Unpairs, under the same rule as `save`.
  func remove() throws(StorageError) {
    try checkWritable()
    try file.remove()
    tag = nil
    problem = nil
  }

  private func checkWritable() throws(StorageError) {
    if isHeld { load() }
    if let refusal = files.unreadable.refusal(toWrite: PairingFile.name) { throw refusal }
  }
}
