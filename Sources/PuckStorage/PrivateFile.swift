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
    // O_NOFOLLOW: a symbolic link here could point the daemon at anyone's file.
    let file: FileDescriptor
    do throws(FileSystemError) {
      file = try .open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    } catch {
      switch error.code {
      case ENOENT: return nil
      case ELOOP: throw .refused(.notARegularFile(path: path))
      default: throw .fileSystem(error)
      }
    }
    defer { file.close() }
    // Checked on the open descriptor, so the file judged is the file read.
    var info = stat()
    do throws(FileSystemError) {
      try systemCall("check", path: path) { fstat(file.rawValue, &info) }
    } catch {
      throw .fileSystem(error)
    }
    if let refusal = refusal(for: info, path: path, expectedOwner: expectedOwner) { throw .refused(refusal) }
    do throws(FileSystemError) {
      return try DurableFile.readAll(file.rawValue, path: path)
    } catch {
      throw .fileSystem(error)
    }
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
