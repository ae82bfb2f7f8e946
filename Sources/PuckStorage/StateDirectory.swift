import Glibc
import PuckCore
import PuckSystem

/// The daemon's state directory (`/var/lib/puckalarm`): whole-file versioned documents
/// (`alarms.json`, `guards.json`, `pairing.json`), each with a last good copy, and the record of
/// files that could not be read (docs/DESIGN.md D2–D4).
///
/// Files in it:
/// - `NAME`: the document, `{"payload": …, "schemaVersion": N}`, mode 0600.
/// - `NAME.prev`: the last good copy: the previous `NAME`, kept (as a hard link) by each save if
///   it still decoded.
/// - `NAME.corrupt-20261202T112233Z` (`-2`, `-3`, … if taken): an unreadable `NAME`, byte for
///   byte, never overwritten.
/// - `problems.json`: the unacknowledged `StateProblem`s, so that status shows them across
///   restarts until the owner acknowledges them.
/// - `.NAME.tmp-…`: a write in progress (or left by a crash; see `removeStaleTemporaryFiles`).
///
/// One process (puckd) writes here; the type holds no open files and no mutable state, so it
/// is a plain `Sendable` value, but two writers would race each other's `.prev` copies.
public struct StateDirectory: Sendable {
  /// The directory's path.
  public let path: String
  /// The mode of every file written (0600: state is root's business; `puckctl` reads it through
  /// the daemon).
  public static let fileMode: mode_t = 0o600
  /// The mode the directory is created with when it is missing.
  public static let directoryMode: mode_t = 0o700
  /// The name of the unacknowledged-problems file; not available for documents.
  public static let problemsFileName = "problems.json"

  /// The clock that timestamps corrupt copies and problems.
  let now: @Sendable () -> Instant

  /// Opens the state directory at `path`, creating it (and missing parents) with mode 0700 if
  /// it does not exist. An existing directory's mode is left as it is (tmpfiles.d owns it).
  public init(path: String, clock: @escaping @Sendable () -> Instant = { Instant.systemNow })
    throws(StorageError)
  {
    self.path = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    self.now = clock
    do throws(FileSystemError) {
      try Self.makeDirectory(self.path)
    } catch {
      throw .fileSystem(error)
    }
  }

  /// The full path of a file in the directory.
  public func filePath(_ name: String) -> String {
    path + "/" + name
  }

  /// Reads document `name`. A missing file gives a nil value and no problem. A file that does
  /// not decode (cut short, garbage, unknown schema version) is kept as
  /// `NAME.corrupt-TIMESTAMP`, replaced by the last good copy if there is one (else removed), and
  /// reported in the result and in `problems()`.
  public func load<T: VersionedPayload>(_ name: String, as type: T.Type = T.self) throws(StorageError)
    -> StateLoad<T>
  {
    Self.checkName(name)
    return try mapErrors { () throws(FileSystemError) -> StateLoad<T> in
      guard let bytes = try DurableFile.read(filePath(name)) else { return StateLoad(value: nil) }
      return try decodeOrRecover(name, bytes: bytes, as: type, recordProblems: true)
    }
  }

  /// The last good copy of document `name` (`NAME.prev`) for a caller whose `NAME` could not be
  /// read at all: nil when there is none or it does not decode. Only reads; records nothing.
  public func loadLastGoodCopy<T: VersionedPayload>(_ name: String, as type: T.Type = T.self)
    throws(StorageError) -> T?
  {
    Self.checkName(name)
    return try mapErrors { () throws(FileSystemError) -> T? in
      guard let bytes = try DurableFile.read(filePath(name) + ".prev") else { return nil }
      return try? DocumentCodec.decode(type, from: bytes)
    }
  }

  /// Replaces document `name` atomically and durably. When `keepsPreviousCopy` is true (the
  /// default), the current file becomes `NAME.prev` first if it still decodes; when false, any
  /// `NAME.prev` is removed (for files where falling back to an older value would be wrong).
  public func save<T: VersionedPayload>(_ value: T, name: String, keepsPreviousCopy: Bool = true)
    throws(StorageError)
  {
    Self.checkName(name)
    let bytes: [UInt8]
    do {
      bytes = try DocumentCodec.encode(value, pretty: true) + [UInt8(ascii: "\n")]
    } catch {
      throw .unencodable(file: name, error)
    }
    try mapErrors { () throws(FileSystemError) in
      let file = filePath(name)
      let previous = file + ".prev"
      if keepsPreviousCopy {
        if let current = try DurableFile.read(file), (try? DocumentCodec.decode(T.self, from: current)) != nil
        {
          try linkReplacing(from: file, to: previous)
        }
      } else {
        try DurableFile.remove(previous)
      }
      // The directory fsync at the end of this write also makes the `.prev` link durable.
      try DurableFile.write(bytes, to: file, mode: Self.fileMode)
    }
  }

  /// Removes document `name` and its last good copy, durably. Corrupt copies stay.
  public func remove(_ name: String) throws(StorageError) {
    try mapErrors { () throws(FileSystemError) in
      try DurableFile.remove(filePath(name))
      try DurableFile.remove(filePath(name) + ".prev")
    }
  }

  /// The problems found so far and not yet acknowledged, oldest first.
  public func problems() throws(StorageError) -> [StateProblem] {
    try mapErrors { () throws(FileSystemError) in try loadProblemLog().problems }
  }

  /// Forgets the recorded problems (the owner has seen them); the corrupt copies stay on disk.
  public func acknowledgeProblems() throws(StorageError) {
    try remove(Self.problemsFileName)
  }

  /// Removes temporary files left by writes a crash interrupted; returns their names. Call it
  /// once at daemon start, before anything writes: it would delete a write in progress.
  @discardableResult
  public func removeStaleTemporaryFiles() throws(StorageError) -> [String] {
    try mapErrors { () throws(FileSystemError) in
      let stale = try DurableFile.listDirectory(path).filter { $0.hasPrefix(".") && $0.contains(".tmp-") }
      for name in stale { try DurableFile.remove(filePath(name)) }
      return stale
    }
  }

  // MARK: - Shared with PairingFile and HistoryLog

  /// Decodes `bytes` read from `name`; on failure keeps them aside, falls back to `NAME.prev`
  /// and records the problem.
  func decodeOrRecover<T: VersionedPayload>(
    _ name: String, bytes: [UInt8], as type: T.Type, recordProblems: Bool
  ) throws(FileSystemError) -> StateLoad<T> {
    let failure: DocumentError
    do {
      return StateLoad(value: try DocumentCodec.decode(type, from: bytes))
    } catch {
      failure = error
    }
    let file = filePath(name)
    let detectedAt = now()
    let keptAs = try keepAside(bytes, of: name, at: detectedAt)
    var value: T?
    var fallback = StateProblem.Fallback.empty
    if let previous = try DurableFile.read(file + ".prev"),
      let decoded = try? DocumentCodec.decode(type, from: previous)
    {
      try DurableFile.write(previous, to: file, mode: Self.fileMode)
      value = decoded
      fallback = .lastGoodCopy
    } else {
      // The bytes are safe in the corrupt copy; leaving the file would report it again forever.
      try DurableFile.remove(file)
    }
    let problem = StateProblem(
      file: name, reason: failure.description, keptAs: keptAs, fallback: fallback, detectedAt: detectedAt)
    if recordProblems { try record([problem]) }
    return StateLoad(value: value, problems: [problem])
  }

  /// Writes `bytes` to a new `NAME.corrupt-TIMESTAMP` (with `-2`, `-3`, … when that name is
  /// taken; an earlier copy is never overwritten) and returns its name.
  func keepAside(_ bytes: [UInt8], of name: String, at instant: Instant) throws(FileSystemError) -> String {
    let base = "\(name).corrupt-\(instant.compactUTC)"
    var candidate = base
    var suffix = 1
    while true {
      do throws(FileSystemError) {
        try DurableFile.create(bytes, at: filePath(candidate), mode: Self.fileMode)
        return candidate
      } catch  where error.code == EEXIST {
        suffix += 1
        candidate = "\(base)-\(suffix)"
      }
    }
  }

  /// Adds problems to `problems.json`.
  func record(_ newProblems: [StateProblem]) throws(FileSystemError) {
    var log = try loadProblemLog()
    log.problems += newProblems
    do {
      let bytes = try DocumentCodec.encode(log, pretty: true) + [UInt8(ascii: "\n")]
      try DurableFile.write(bytes, to: filePath(Self.problemsFileName), mode: Self.fileMode)
    } catch let error as FileSystemError {
      throw error
    } catch {
      // StateProblemLog is plain strings and numbers; encoding it cannot fail.
      preconditionFailure("could not encode the problem log: \(error)")
    }
  }

  /// `problems.json`, including a problem about itself if it was unreadable.
  private func loadProblemLog() throws(FileSystemError) -> StateProblemLog {
    let name = Self.problemsFileName
    guard let bytes = try DurableFile.read(filePath(name)) else { return StateProblemLog() }
    let loaded = try decodeOrRecover(name, bytes: bytes, as: StateProblemLog.self, recordProblems: false)
    var log = loaded.value ?? StateProblemLog()
    log.problems += loaded.problems
    return log
  }

  /// Makes `to` another name for `from`'s content (replacing `to` atomically): link to a
  /// temporary name, then rename over `to`.
  private func linkReplacing(from source: String, to destination: String) throws(FileSystemError) {
    let temporary =
      path + "/" + DurableFile.temporaryPrefix(for: DurableFile.baseName(of: destination))
      + "\(getpid())-link"
    unlink(temporary)
    try systemCall("link \(source) to", path: temporary) { link(source, temporary) }
    do throws(FileSystemError) {
      try systemCall("rename \(temporary) to", path: destination) { rename(temporary, destination) }
    } catch {
      unlink(temporary)
      throw error
    }
    // rename(2) does nothing when both names are links to one file, as they are after a save
    // stopped past this link; the temporary name would stay (docs/RELIABILITY.md, torn writes).
    unlink(temporary)
  }

  private func mapErrors<Result>(_ body: () throws(FileSystemError) -> Result) throws(StorageError) -> Result
  {
    do {
      return try body()
    } catch {
      throw .fileSystem(error)
    }
  }

  /// Document names are puckd's own constants; a bad one is a bug, not bad input.
  private static func checkName(_ name: String) {
    precondition(
      !name.isEmpty && !name.contains("/") && !name.hasPrefix(".") && !name.hasSuffix(".prev")
        && !name.contains(".corrupt-") && name != problemsFileName,
      "'\(name)' is not a state document name")
  }

  /// `mkdir -p` with mode 0700 for every directory it creates, set exactly (not umask-reduced).
  private static func makeDirectory(_ path: String) throws(FileSystemError) {
    var info = stat()
    if stat(path, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFDIR else {
        throw FileSystemError(operation: "use as the state directory", path: path, code: ENOTDIR)
      }
      return
    }
    let parent = DurableFile.directoryName(of: path)
    if parent != path && parent != "/" && parent != "." { try makeDirectory(parent) }
    do throws(FileSystemError) {
      try systemCall("create directory", path: path) { mkdir(path, directoryMode) }
    } catch  where error.code == EEXIST {
      return
    }
    try systemCall("set the mode of", path: path) { chmod(path, directoryMode) }
    try DurableFile.syncDirectory(of: path)
  }
}

/// The outcome of reading a state file: its value (nil when absent or unrecoverable) and any
/// problem found while reading it.
public struct StateLoad<Value: Sendable>: Sendable {
  /// The decoded value, from the file or its last good copy; nil when there is neither.
  public var value: Value?
  /// What went wrong on this read (already recorded in `problems.json` for documents).
  public var problems: [StateProblem]

  /// An outcome.
  public init(value: Value?, problems: [StateProblem] = []) {
    self.value = value
    self.problems = problems
  }
}

extension Instant {
  /// The system's real-time clock (`CLOCK_REALTIME`), to the second.
  public static var systemNow: Instant {
    Instant(unixSeconds: SystemClock.wall.now().components.seconds)
  }
}
