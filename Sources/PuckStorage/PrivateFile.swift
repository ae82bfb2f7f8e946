import Glibc
import PuckCore
import PuckSystem

/// Why a root-only file was not read.
enum PrivateFileError: Error {
  case refused(PairingFileRefusal)
  case fileSystem(FileSystemError)
}

/// The checks a file that grants power passes before it is read (docs/DESIGN.md P4, M1): the
/// pairing and the reader keys. A plain file, owned by the user puckd runs as, with no group or
/// other permission bits, as ssh treats a private key; a refused file is left exactly as it is.
enum PrivateFile {
  /// The bytes of `path`; nil when it does not exist.
  static func read(_ path: String, expectedOwner: uid_t) throws(PrivateFileError) -> [UInt8]? {
    let opened: (file: FileDescriptor, info: stat)?
    do throws(FileSystemError) {
      opened = try open(path)
    } catch {
      throw error.code == ELOOP ? .refused(.notARegularFile(path: path)) : .fileSystem(error)
    }
    guard let (file, info) = opened else { return nil }
    defer { file.close() }
    if let refusal = refusal(for: info, path: path, expectedOwner: expectedOwner) { throw .refused(refusal) }
    do throws(FileSystemError) {
      return try DurableFile.readAll(file.rawValue, path: path)
    } catch {
      throw .fileSystem(error)
    }
  }

  /// Opens `path` for reading and reads its owner, type and mode from the open descriptor, so
  /// the file judged is the file read; nil when it does not exist. `O_NOFOLLOW`: a symbolic
  /// link here could point the reader at anyone's file (it fails with `ELOOP`). `O_NONBLOCK`:
  /// a FIFO put here would hold the open until something wrote to it; it opens at once, and
  /// is refused as not a plain file.
  static func open(_ path: String) throws(FileSystemError) -> (file: FileDescriptor, info: stat)? {
    let file: FileDescriptor
    do throws(FileSystemError) {
      file = try .open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    } catch {
      if error.code == ENOENT { return nil }
      throw error
    }
    var info = stat()
    do throws(FileSystemError) {
      try systemCall("check", path: path) { fstat(file.rawValue, &info) }
    } catch {
      file.close()
      throw error
    }
    return (file, info)
  }

  private static func refusal(for info: stat, path: String, expectedOwner: uid_t) -> PairingFileRefusal? {
    if info.st_mode & S_IFMT != S_IFREG { return .notARegularFile(path: path) }
    if info.st_uid != expectedOwner {
      return .wrongOwner(path: path, owner: info.st_uid, expected: expectedOwner)
    }
    if info.st_mode & 0o077 != 0 { return .accessibleToOthers(path: path, mode: info.st_mode) }
    return nil
  }
}
