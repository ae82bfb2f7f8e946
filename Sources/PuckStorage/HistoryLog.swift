import Glibc
import PuckCore

/// The append-only history (`history.jsonl`): one entry per line, each line
/// `{"payload": …, "schemaVersion": N}` (JSON Lines).
///
/// Appends never rewrite earlier lines, so a power loss can at worst cut the last line short;
/// reading tolerates that. A line in the middle that does not decode is skipped and reported,
/// and the whole file is copied aside as `history.jsonl.corrupt-TIMESTAMP` the first time that
/// line is seen; the file itself is never rewritten.
public struct HistoryLog<Entry: VersionedPayload>: Sendable {
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
      let descriptor = try systemCall("open", path: path) {
        // Read-write only to look at the last byte; every write goes to the end (O_APPEND).
        open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, StateDirectory.fileMode)
      }
      defer { close(descriptor) }
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

  /// The readable entries among the file's last `count` lines, oldest first, reading backwards
  /// from the end (at most `maxBytes`), never the whole file. Lines that do not decode are
  /// skipped without a report: `read` reports them.
  public func last(_ count: Int, maxBytes: Int = 4 << 20) throws(StorageError) -> [Entry] {
    let path = self.path
    do throws(FileSystemError) {
      let descriptor = open(path, O_RDONLY | O_CLOEXEC)
      if descriptor < 0 && errno == ENOENT { return [] }
      guard descriptor >= 0 else { throw FileSystemError(operation: "open", path: path, code: errno) }
      defer { close(descriptor) }
      var info = stat()
      try systemCall("check", path: path) { fstat(descriptor, &info) }
      let size = Int(info.st_size)
      var start = size
      var tail: [UInt8] = []
      var newlines = 0
      // Enough lines are in hand when count + 1 newlines are (the first may end a partial line).
      while start > 0, size - start < maxBytes, newlines <= count {
        let length = min(64 * 1024, start)
        var chunk = [UInt8](repeating: 0, count: length)
        let got = try systemCall("read", path: path) {
          chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, length, off_t(start - length)) }
        }
        guard got == length else { break }
        newlines += chunk.lazy.filter { $0 == UInt8(ascii: "\n") }.count
        tail = chunk + tail
        start -= length
      }
      var lines = tail.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
      // A line cut by where reading started is not whole.
      if start > 0, !lines.isEmpty { lines.removeFirst() }
      return lines.suffix(count).compactMap { try? DocumentCodec.decode(Entry.self, from: Array($0)) }
    } catch {
      throw .fileSystem(error)
    }
  }

  /// The last `limit` readable entries (all of them when nil), oldest first and newest last,
  /// with any problems found while reading.
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
