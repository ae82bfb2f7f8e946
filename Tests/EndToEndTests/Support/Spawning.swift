import Foundation
import Glibc

/// Child processes started from many test threads at once, without one child keeping another's
/// descriptors.
///
/// Foundation's `Process.run()` closes the parent's other descriptors in the child from a list
/// it makes before spawning, and what it and `Pipe` open are not close-on-exec: a pipe, or the
/// socket pair `Process` watches to see its own child exit, made by another thread in that window
/// leaks into the child being started. Whoever waits for that pipe's end, or for that child to
/// exit, then waits as long as the other child lives: a daemon, the whole test. On CI a `puckctl
/// status` that had exited at once held its caller past 30 s. A trial here (one thread starting
/// `sleep 20` children, another running `true` with a `Pipe` and reading it to the end) saw one
/// read in 200 last 20 s, in each of three runs; with `spawn()` and `CapturedOutput`, none in
/// four.
///
/// So every child of these tests starts through `Spawning.alone` (`Process.spawn()`), one at a
/// time, and its output goes to a `CapturedOutput`; the descriptors the tests open themselves are
/// close-on-exec.
enum Spawning {
  private static let lock = NSLock()

  /// Runs `start`, which starts a child, while no other test starts one.
  static func alone<T>(_ start: () throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try start()
  }
}

extension Process {
  /// `run()`, with no other test's child being started meanwhile.
  func spawn() throws {
    try Spawning.alone { try run() }
  }

  /// Runs to the end with `stdin` as its input (none when nil) and returns what it printed, each
  /// stream caught in a `CapturedOutput`.
  func runToCompletion(stdin: String? = nil) throws -> ProcessResult {
    let out = try CapturedOutput()
    let err = try CapturedOutput()
    standardInput = try stdin.map(CapturedOutput.input) ?? FileHandle.nullDevice
    standardOutput = out.handle
    standardError = err.handle
    try spawn()
    waitUntilExit()
    return ProcessResult(status: terminationStatus, stdout: out.text, stderr: err.text)
  }
}

/// A child's output caught in an unlinked file, never a pipe (see `Spawning`): a file has no end
/// to wait for; it is read once the child has exited.
final class CapturedOutput {
  /// The child's end: the same open file, so its writes move the offset `data` rewinds.
  let handle: FileHandle

  init() throws {
    handle = try Self.unlinkedFile()
  }

  /// A file holding `text`, positioned at its start, for a child's standard input.
  static func input(_ text: String) throws -> FileHandle {
    let file = try unlinkedFile()
    file.write(Data(text.utf8))
    try file.seek(toOffset: 0)
    return file
  }

  /// Everything the child wrote; read once it has exited.
  var data: Data {
    (try? handle.seek(toOffset: 0)).flatMap { _ in try? handle.readToEnd() } ?? Data()
  }

  var text: String { String(decoding: data, as: UTF8.self) }

  /// A new file open for reading and writing whose name is already gone: nothing to clean up.
  private static func unlinkedFile() throws -> FileHandle {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "puck-output-\(UUID().uuidString)"
    ).path
    let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw HarnessError("cannot create \(path): errno \(errno)") }
    unlink(path)
    return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
  }
}
