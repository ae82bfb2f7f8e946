import PuckCore
import PuckStorage

/// The paired pucks and their root-only file (docs/DESIGN.md §5). A refused file (owner, mode,
/// type) is replaced by pairing again, deliberately; a file that could not be read may hold a
/// good pairing and is not written over until it reads.
final class PairingStore {
  private let file: PairingFile
  private let files: StateFiles
  /// The pucks, in the order they were paired; empty when none is (or none could be read).
  private(set) var pairing = Pairing()
  /// Why the pairing file was refused or could not be read.
  private(set) var problem: String?

  init(files: StateFiles) {
    self.files = files
    file = PairingFile(directory: files.directory)
  }

  /// Whether the file could not be read and is held.
  var isHeld: Bool { files.unreadable.contains(PairingFile.name) }

  /// The pucks.
  var pucks: [PairedTag] { pairing.pucks }

  /// Whether any puck is paired.
  var isPaired: Bool { !pairing.pucks.isEmpty }

  func load() {
    do {
      let loaded = try file.load()
      pairing = loaded.value ?? Pairing()
      problem = nil
      files.release(PairingFile.name)
      files.logProblems(loaded.problems)
      if isPaired { Log.info("paired: \(pucks.map(\.display).joined(separator: ", "))") }
    } catch {
      pairing = Pairing()
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
  /// as at start, and the pucks it holds against those this daemon enforces. Changes nothing:
  /// a loosened or swapped file is reported, and the pucks in memory go on ending wake-ups.
  func readBack() -> (ok: Bool, detail: String) {
    let inMemory = Set(pucks.map(\.uid))
    switch file.readBack() {
    case .failure(let error):
      let still =
        pucks.count == 1
        ? " — the tag paired earlier (\(pucks[0].display)) still ends a wake-up"
        : isPaired ? " — the pucks paired earlier still end a wake-up" : ""
      return (false, "\(error)\(still)")
    case .success(nil):
      return isPaired
        ? (false, "\(PairingFile.name) is gone from disk; pair again: sudo puckctl pair")
        : (false, "no tag paired — run: sudo puckctl pair")
    case .success(let onDisk?):
      guard Set(onDisk.pucks.map(\.uid)) == inMemory, !inMemory.isEmpty else {
        let disk = onDisk.pucks.map(\.uid.masked).joined(separator: ", ")
        return (
          false,
          "\(PairingFile.name) holds [\(disk)], not the pucks this puckd enforces (restart it or pair again)"
        )
      }
      return (
        true, "\(PairingFile.name) reads back \(pucks.map(\.display).joined(separator: ", ")), root-only"
      )
    }
  }

  /// Adds a puck, unless the file could not be read (then pairing would silently replace a
  /// pairing nobody has seen); the read is tried once more first.
  func add(_ puck: PairedTag) throws(StorageError) {
    try checkWritable()
    var changed = pairing
    changed.pucks.append(puck)
    try file.save(changed)
    pairing = changed
    problem = nil
  }

  /// Removes the puck named `name`, under the same rule as `add`; the file goes with the last.
  func remove(named name: String) throws(StorageError) {
    try checkWritable()
    var changed = pairing
    changed.pucks.removeAll { $0.name == name }
    if changed.pucks.isEmpty {
      try file.remove()
    } else {
      try file.save(changed)
    }
    pairing = changed
    problem = nil
  }

  /// A reader read puck `uid` at `instant`: its `lastSeen` moves, and is saved (after the ring
  /// was handled, never before). A save that fails is logged; it costs nothing but the date.
  func noteSeen(_ uid: TagUID, at instant: Instant) {
    guard let index = pairing.pucks.firstIndex(where: { $0.uid == uid }), !isHeld else { return }
    pairing.pucks[index].lastSeen = instant
    do {
      try file.save(pairing)
    } catch {
      Log.warning("could not note when \(pairing.pucks[index].display) was last seen: \(error)")
    }
  }

  /// Why the pairing cannot be changed now (the file could not be read, even tried again).
  func refusal() -> StorageError? {
    do {
      try checkWritable()
      return nil
    } catch {
      return error
    }
  }

  private func checkWritable() throws(StorageError) {
    if isHeld { load() }
    if let refusal = files.unreadable.refusal(toWrite: PairingFile.name) { throw refusal }
  }
}
