import Glibc
import PuckCore
import PuckSystem

/// The append-only history (`history.jsonl`): one entry per line, each line
/// `{"payload": …, "schemaVersion": N}` (JSON Lines).
///
/// Appends never rewrite earlier lines, so a power loss can at worst cut the last line short;
/// reading tolerates that. A line in the middle that does not decode is skipped and reported,
/// and the whole file is copied aside as `history.jsonl.corrupt-TIMESTAMP` the first time that
/// line is seen; the file itself is never rewritten.
///
/// puckd reads it a page at a time from the end (`readPage`), so a request costs what the page
/// holds, not what years of history hold; `read` reads the whole file.
public struct HistoryLog<Entry: VersionedPayload>: Sendable {
  /// The most bytes one page goes through by default: 1000 entries of the largest kind (a
  /// 256-byte label) take well under a megabyte.
  public static var pageScanBudget: Int { 4 << 20 }
  /// The default file name in the state directory.
  public static var defaultName: String { "history.jsonl" }
  /// The directory holding the file.
  public let directory: StateDirectory
  /// The file's name in that directory.
  public let name: String

  /// The history file `name` in `directory`.
  public init(directory: StateDirectory, name: String = HistoryLog.defaultName) {
    self.directory = directory
    self.name = name
  }

  /// The full path of the file.
  public var path: String { directory.filePath(name) }

  /// Appends one entry durably: a single `write` to a file opened `O_APPEND`, then `fsync`.
  /// If the file's last line was cut short, a newline is written first so the new entry
  /// starts on a line of its own.
  public func append(_ entry: Entry) throws(StorageError) {
    try append(contentsOf: [entry])
  }

  /// Appends entries durably with one `write` and one `fsync` for all of them, as `append`
  /// does for one: years of missed alarms are recorded in a few writes, not thousands.
  public func append(contentsOf entries: [Entry]) throws(StorageError) {
    guard !entries.isEmpty else { return }
    var line: [UInt8] = []
    do {
      for entry in entries { line += try DocumentCodec.encode(entry) + [UInt8(ascii: "\n")] }
    } catch {
      throw .unencodable(file: name, error)
    }
    let path = self.path
    do throws(FileSystemError) {
      // Read-write only to look at the last byte; every write goes to the end (O_APPEND).
      let file = try FileDescriptor.open(
        path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, mode: StateDirectory.fileMode)
      defer { file.close() }
      let descriptor = file.rawValue
      var info = stat()
      try systemCall("check", path: path) { fstat(descriptor, &info) }
      if info.st_size > 0 {
        var last: UInt8 = 0
        try systemCall("read", path: path) { pread(descriptor, &last, 1, info.st_size - 1) }
        if last != UInt8(ascii: "\n") { line.insert(UInt8(ascii: "\n"), at: 0) }
      }
      try DurableFile.writeAll(line, to: descriptor, path: path)
      try systemCall("fsync", path: path) { fsync(descriptor) }
      // A new file's directory entry must be made durable too.
      if info.st_size == 0 { try DurableFile.syncDirectory(of: path) }
    } catch {
      throw .fileSystem(error)
    }
  }

  /// Whether `entry` is in the file, looking back from the end a page at a time until
  /// `isOlder` says the entries have become older than it could be. A caller that may have
  /// appended it already (a crash or a failed `fsync` came between the append and its own
  /// record of it) looks before appending again, so an entry is never recorded twice; however
  /// much was appended after it (years of missed alarms), only the part of the file newer than
  /// it is read.
  public func contains(_ entry: Entry, stoppingAt isOlder: (Entry) -> Bool) throws(StorageError) -> Bool
  where Entry: Equatable {
    var before: Int?
    while true {
      guard let page = try readPage(before: before, limit: HistoryQuery.maximumLimit) else { return false }
      if page.entries.contains(entry) { return true }
      guard let next = page.nextBefore, !page.entries.contains(where: isOlder) else { return false }
      before = next
    }
  }

  /// The readable entries among the newest `count`, oldest first: one page from the end (so
  /// never the whole file), with the page's problem reporting.
  public func last(_ count: Int) throws(StorageError) -> [Entry] {
    try readPage(limit: count)?.entries ?? []
  }

  /// Up to `limit` readable entries lying before offset `before` (the newest when nil), oldest
  /// first and newest last, read backwards from there a block at a time: the cost follows the
  /// page, not the file. Returns nil when `before` is not where a line of this file starts (not
  /// a `nextBefore` this file gave), so a made-up cursor cannot cut a line in two and have its
  /// halves reported, and the file copied aside, as corrupt.
  ///
  /// The lines a page reads get the guarantees `read` gives: a torn last line is skipped and
  /// reported, a bad line is skipped and reported and the file copied aside once for it. Lines
  /// no page reaches are not checked, so a bad line deep in the history is reported when a page
  /// first reaches it.
  ///
  /// A page stops early, with fewer entries and a `nextBefore`, once it has gone through
  /// `scanBudget` bytes: a long run of unreadable lines costs one bounded page after another,
  /// not one read of the whole file.
  public func readPage(before: Int? = nil, limit: Int, scanBudget: Int = HistoryLog.pageScanBudget)
    throws(StorageError) -> HistoryPage<Entry>?
  {
    let path = self.path
    do throws(FileSystemError) {
      let file: FileDescriptor
      do throws(FileSystemError) {
        file = try .open(path, O_RDONLY | O_CLOEXEC)
      } catch  where error.code == ENOENT {
        return (before ?? 0) == 0 ? HistoryPage(entries: [], nextBefore: nil) : nil
      }
      defer { file.close() }
      let descriptor = file.rawValue
      var info = stat()
      try systemCall("check", path: path) { fstat(descriptor, &info) }
      let size = Int(info.st_size)
      let end = before ?? size
      guard end >= 0, end <= size else { return nil }
      if before != nil, end > 0 {
        let previous = try BackwardLineReader.read(descriptor, path: path, range: (end - 1)..<end)
        guard previous == [UInt8(ascii: "\n")] else { return nil }
      }
      var reader = BackwardLineReader(descriptor: descriptor, path: path, end: end)
      var newestFirst: [Entry] = []
      var badLines: [BackwardLineReader.Line] = []
      var firstFailure: String?
      var tornLine = false
      var oldestRead = end
      while newestFirst.count < limit, end - oldestRead < scanBudget, let line = try reader.previousLine() {
        oldestRead = line.start
        guard let bytes = line.bytes else {
          badLines.append(line)
          firstFailure = firstFailure ?? "longer than any entry puckd writes"
          continue
        }
        // Blank lines carry nothing; the newline that repairs a torn line can leave one.
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
        do {
          newestFirst.append(try DocumentCodec.decode(Entry.self, from: bytes))
        } catch {
          if line.terminated {
            badLines.append(line)
            firstFailure = firstFailure ?? "\(error)"
          } else {
            tornLine = true
          }
        }
      }
      var problems: [StateProblem] = []
      if let firstFailure {
        problems.append(try reportBadLines(badLines, failure: firstFailure, in: descriptor, size: size))
      }
      if tornLine {
        problems.append(
          StateProblem(
            file: name,
            reason:
              "the last line was cut short, as a power loss during a write leaves it; that entry is skipped",
            keptAs: nil, fallback: .readableParts, detectedAt: directory.now()))
      }
      let more = oldestRead > 0 && (newestFirst.count >= limit || end - oldestRead >= scanBudget)
      return HistoryPage(
        entries: newestFirst.reversed(), nextBefore: more ? oldestRead : nil, problems: problems)
    } catch {
      throw .fileSystem(error)
    }
  }

  /// Every readable entry (the last `limit` when given), oldest first and newest last, with
  /// any problems found while reading. Reads and decodes the whole file; puckd serves requests
  /// with `readPage`.
  public func read(limit: Int? = nil) throws(StorageError) -> StateLoad<[Entry]> {
    do throws(FileSystemError) {
      guard let bytes = try DurableFile.read(path) else { return StateLoad(value: []) }
      return try decode(bytes, limit: limit)
    } catch {
      throw .fileSystem(error)
    }
  }

  private func decode(_ bytes: [UInt8], limit: Int?) throws(FileSystemError) -> StateLoad<[Entry]> {
    var entries: [Entry] = []
    var badLines: [Int] = []
    var firstFailure: DocumentError?
    var badEnd = 0  // byte offset just past the last bad complete line
    var tornLine: (number: Int, failure: DocumentError)?
    var lineStart = 0
    var lineNumber = 0
    while lineStart < bytes.count {
      lineNumber += 1
      let newline = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n"))
      let lineEnd = newline ?? bytes.count
      let line = Array(bytes[lineStart..<lineEnd])
      lineStart = lineEnd + 1
      // Blank lines carry nothing; the newline that repairs a torn line can leave one.
      if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
      do {
        entries.append(try DocumentCodec.decode(Entry.self, from: line))
      } catch {
        if newline == nil {
          tornLine = (lineNumber, error)
        } else {
          badLines.append(lineNumber)
          firstFailure = firstFailure ?? error
          badEnd = lineEnd + 1
        }
      }
    }
    var problems: [StateProblem] = []
    if let firstFailure {
      problems.append(try reportBadLines(badLines, failure: firstFailure, file: bytes, badEnd: badEnd))
    }
    if let tornLine {
      problems.append(
        StateProblem(
          file: name,
          reason: "the last line (\(tornLine.number)) was cut short, as a power loss during a write "
            + "leaves it; that entry is skipped",
          keptAs: nil, fallback: .readableParts, detectedAt: directory.now()))
    }
    if let limit { entries = Array(entries.suffix(max(0, limit))) }
    return StateLoad(value: entries, problems: problems)
  }

  /// A problem for bad lines a page met, copying the file aside unless an earlier copy already
  /// holds each of them at the same place (history only grows, so such a copy has them all).
  private func reportBadLines(
    _ lines: [BackwardLineReader.Line], failure: String, in descriptor: Int32, size: Int
  ) throws(FileSystemError) -> StateProblem {
    let offsets = lines.map(\.start).sorted()
    let listed = offsets.prefix(5).map(String.init).joined(separator: ", ") + (offsets.count > 5 ? ", …" : "")
    let reason =
      "\(lines.count == 1 ? "the line at byte" : "the lines at bytes") \(listed) could not be read "
      + "(\(failure)); \(lines.count == 1 ? "it is" : "they are") skipped"
    for existing in try DurableFile.listDirectory(directory.path).sorted()
    where existing.hasPrefix("\(name).corrupt-") {
      if try copy(existing, holds: lines, of: descriptor) {
        return StateProblem(
          file: name, reason: reason, keptAs: existing, fallback: .readableParts, detectedAt: directory.now())
      }
    }
    // A new bad line: the one time a page reads the whole file, to keep it aside.
    let detectedAt = directory.now()
    let file = try BackwardLineReader.read(descriptor, path: path, range: 0..<size)
    let keptAs = try directory.keepAside(file, of: name, at: detectedAt)
    let problem = StateProblem(
      file: name, reason: reason, keptAs: keptAs, fallback: .readableParts, detectedAt: detectedAt)
    try directory.record([problem])
    return problem
  }

  /// Whether the copy `copyName` holds each of `lines` (with its newline) at the same offset
  /// as the file open on `descriptor`; compares only those lines, a block at a time.
  private func copy(_ copyName: String, holds lines: [BackwardLineReader.Line], of descriptor: Int32)
    throws(FileSystemError) -> Bool
  {
    let copyPath = directory.filePath(copyName)
    let copyFile = try FileDescriptor.open(copyPath, O_RDONLY | O_CLOEXEC)
    defer { copyFile.close() }
    let copy = copyFile.rawValue
    var info = stat()
    try systemCall("check", path: copyPath) { fstat(copy, &info) }
    let block = 64 * 1024
    for line in lines {
      let range = line.start..<(line.end + 1)
      guard range.upperBound <= Int(info.st_size) else { return false }
      for start in stride(from: range.lowerBound, to: range.upperBound, by: block) {
        let piece = start..<min(start + block, range.upperBound)
        let original = try BackwardLineReader.read(descriptor, path: path, range: piece)
        guard try BackwardLineReader.read(copy, path: copyPath, range: piece) == original else {
          return false
        }
      }
    }
    return true
  }

  /// A problem for the bad lines, copying `file` aside unless an earlier copy already holds
  /// every bad line (history only grows, so a copy that starts with the file's first `badEnd`
  /// bytes covers them).
  private func reportBadLines(_ lines: [Int], failure: DocumentError, file: [UInt8], badEnd: Int)
    throws(FileSystemError) -> StateProblem
  {
    let prefix = file[..<badEnd]
    let listed = lines.prefix(5).map(String.init).joined(separator: ", ") + (lines.count > 5 ? ", …" : "")
    let reason =
      "\(lines.count == 1 ? "line" : "lines") \(listed) could not be read (\(failure)); "
      + "\(lines.count == 1 ? "it is" : "they are") skipped"
    for existing in try DurableFile.listDirectory(directory.path).sorted()
    where existing.hasPrefix("\(name).corrupt-") {
      if let copy = try DurableFile.read(directory.filePath(existing)), copy.starts(with: prefix) {
        return StateProblem(
          file: name, reason: reason, keptAs: existing, fallback: .readableParts, detectedAt: directory.now())
      }
    }
    let detectedAt = directory.now()
    let keptAs = try directory.keepAside(file, of: name, at: detectedAt)
    let problem = StateProblem(
      file: name, reason: reason, keptAs: keptAs, fallback: .readableParts, detectedAt: detectedAt)
    try directory.record([problem])
    return problem
  }
}
