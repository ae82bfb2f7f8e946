import Glibc
import PuckSystem

/// The single-instance lock on a state directory: an exclusive `flock` on `puckd.lock` in it,
/// held for as long as this value lives. Two daemons on one state directory would race each
/// other's atomic writes and `.prev` copies; the second one must refuse to start instead.
///
/// The lock belongs to the open file description, so it goes away with the process however it
/// ends (SIGKILL included): a crashed daemon never leaves a stale lock behind. The file holds the
/// holder's pid, for the message the next one prints.
public final class StateDirectoryLock {
  /// The lock file's name in the state directory.
  public static let fileName = "puckd.lock"
  private let file: FileDescriptor

  /// Takes the lock on `directory`, or throws `.inUse` naming the daemon that holds it.
  public init(_ directory: StateDirectory) throws(StorageError) {
    let path = directory.filePath(Self.fileName)
    let file: FileDescriptor
    do throws(FileSystemError) {
      file = try .open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode: StateDirectory.fileMode)
    } catch {
      throw .fileSystem(error)
    }
    let descriptor = file.rawValue
    do throws(FileSystemError) {
      try systemCall("lock", path: path) { flock(descriptor, LOCK_EX | LOCK_NB) }
    } catch {
      let holder = error.code == EWOULDBLOCK ? Self.recordedPID(descriptor) : nil
      file.close()
      guard error.code == EWOULDBLOCK else { throw .fileSystem(error) }
      throw .inUse(path: directory.path, pid: holder)
    }
    self.file = file
    // Best effort: the pid only makes the next refusal clearer; the lock is what counts.
    let text = Array("\(getpid())\n".utf8)
    _ = ftruncate(descriptor, 0)
    _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
  }

  /// Lets go of the lock now (a clean exit), rather than when the last reference goes: a
  /// daemon made again in the same process (the in-process tests) must not wait on the old
  /// one's objects. Idempotent; the lock also goes with this value.
  public func release() {
    file.close()
  }

  private static func recordedPID(_ descriptor: Int32) -> Int32? {
    var buffer = [UInt8](repeating: 0, count: 16)
    let count = pread(descriptor, &buffer, buffer.count, 0)
    guard count > 0 else { return nil }
    return Int32(String(decoding: buffer[..<count].prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self))
  }
}
