import Foundation
import Glibc
import PuckCore
import PuckStorage
import Testing

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct ScratchDirectory {
  let path: String

  init() throws {
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("puck-storage-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }
}

/// A stand-in for the alarms document, whose real type comes later.
struct Book: VersionedPayload, Equatable {
  static let schemaVersion = 1
  var alarms: [String]
}

/// A stand-in for history entries.
struct Event: VersionedPayload, Equatable {
  static let schemaVersion = 1
  var what: String
}

/// 2026-12-02T11:22:33Z, the fixed time of every test.
let testInstant = Instant(
  utcDate: LocalDate(year: 2026, month: 12, day: 2), secondsOfDay: 11 * 3600 + 22 * 60 + 33)

/// The file's bytes, or nil when there is no such file. Any other failure is recorded with its
/// errno (a file the test just wrote, read back as nil once under a loaded ThreadSanitizer run,
/// said nothing of why).
func bytes(atPath path: String) -> [UInt8]? {
  let fd = open(path, O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else {
    let error = errno
    if error != ENOENT { Issue.record("cannot open \(path): \(String(cString: strerror(error)))") }
    return nil
  }
  defer { close(fd) }
  var content: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = read(fd, &chunk, chunk.count)
    if count == 0 { return content }
    if count < 0 {
      let error = errno
      if error == EINTR { continue }
      Issue.record("cannot read \(path): \(String(cString: strerror(error)))")
      return nil
    }
    content += chunk[0..<count]
  }
}

func write(_ bytes: [UInt8], toPath path: String) throws {
  try Data(bytes).write(to: URL(fileURLWithPath: path))
}

func names(in path: String) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: path).sorted()
}

func mode(ofPath path: String) -> mode_t {
  var info = stat()
  guard stat(path, &info) == 0 else { return 0 }
  return info.st_mode & 0o7777
}

extension HistoryLog {
  /// The corrupt copies kept beside this history file.
  func corruptCopies() throws -> [String] {
    try names(in: directory.path).filter { $0.hasPrefix("\(name).corrupt-") }
  }

  /// Appends `text` as it is, as a torn or hand-edited write would leave it.
  func append(raw text: String) throws {
    let handle = try #require(FileHandle(forWritingAtPath: path))
    handle.seekToEndOfFile()
    handle.write(Data(text.utf8))
    handle.closeFile()
  }
}
