import Glibc
import PuckCore

/// `pairing.json` in the state directory: the paired tag (docs/DESIGN.md P4).
///
/// Written with mode 0600, atomically. Read only when it is a plain file owned by the user
/// puckd runs as (root on a dock) with no group or other permission bits, as ssh treats a
/// private key: anyone who could write it could pair their own tag. A refused file is left
/// exactly as it is. No last good copy is kept: falling back to an earlier pairing could bring
/// back a tag the owner replaced, so an unreadable file means "not paired" (and a problem).
public struct PairingFile: Sendable {
  /// The file's name in the state directory.
  public static let name = "pairing.json"
  /// The directory holding it.
  public let directory: StateDirectory
  /// The uid the file must belong to.
  public let expectedOwner: uid_t

  /// The pairing file of `directory`, trusted when owned by `expectedOwner` (by default the
  /// effective uid of this process).
  public init(directory: StateDirectory, expectedOwner: uid_t = geteuid()) {
    self.directory = directory
    self.expectedOwner = expectedOwner
  }

  /// The full path of the file.
  public var path: String { directory.filePath(Self.name) }

  /// The paired tag; nil value when not paired. Throws `.pairingFileRefused` for a file with
  /// the wrong owner, loose permissions or of the wrong type, without touching it.
  public func load() throws(StorageError) -> StateLoad<PairedTag> {
    guard let bytes = try readTrusted() else { return StateLoad(value: nil) }
    do {
      return try directory.decodeOrRecover(Self.name, bytes: bytes, as: PairedTag.self, recordProblems: true)
    } catch {
      throw .fileSystem(error)
    }
  }

  /// The file's bytes if it exists and passes the checks.
  private func readTrusted() throws(StorageError) -> [UInt8]? {
    let path = self.path
    // O_NOFOLLOW: a symbolic link here could point the daemon at anyone's file.
    let descriptor: Int32
    do throws(FileSystemError) {
      descriptor = try systemCall("open", path: path) { open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
    } catch {
      switch error.code {
      case ENOENT: return nil
      case ELOOP: throw .pairingFileRefused(path: path, .notARegularFile(path: path))
      default: throw .fileSystem(error)
      }
    }
    defer { close(descriptor) }
    // Checked on the open descriptor, so the file judged is the file read.
    var info = stat()
    do throws(FileSystemError) {
      try systemCall("check", path: path) { fstat(descriptor, &info) }
    } catch {
      throw .fileSystem(error)
    }
    if let refusal = refusal(for: info) { throw .pairingFileRefused(path: path, refusal) }
    do {
      return try DurableFile.readAll(descriptor, path: path)
    } catch {
      throw .fileSystem(error)
    }
  }

  /// Stores the pairing (mode 0600, atomic, durable), replacing any earlier one.
  public func save(_ tag: PairedTag) throws(StorageError) {
    try directory.save(tag, name: Self.name, keepsPreviousCopy: false)
  }

  /// Unpairs: removes the file durably (`unlink`, `fsync` of the directory).
  public func remove() throws(StorageError) {
    try directory.remove(Self.name)
  }

  private func refusal(for info: stat) -> PairingFileRefusal? {
    if info.st_mode & S_IFMT != S_IFREG { return .notARegularFile(path: path) }
    if info.st_uid != expectedOwner {
      return .wrongOwner(path: path, owner: info.st_uid, expected: expectedOwner)
    }
    if info.st_mode & 0o077 != 0 { return .accessibleToOthers(path: path, mode: info.st_mode) }
    return nil
  }
}
