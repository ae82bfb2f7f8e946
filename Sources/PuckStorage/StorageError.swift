import PuckCore

/// Why a state-directory operation failed. Unreadable content is not an error (it is kept
/// aside and reported as a `StateProblem`); these are the failures the caller must handle.
public enum StorageError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A system call failed (disk full, permissions, read-only file system, ...).
  case fileSystem(FileSystemError)
  /// A value could not be encoded for `file` (a bug: puckd's own types always encode).
  case unencodable(file: String, DocumentError)
  /// The pairing file at `path` is not trusted and was left untouched.
  case pairingFileRefused(path: String, PairingFileRefusal)
  /// A reader's key file at `path` is not trusted and was left untouched.
  case readerKeyRefused(path: String, PairingFileRefusal)
  /// The broker password file at `path` is not trusted: it is not used.
  case passwordFileRefused(path: String, PairingFileRefusal)
  /// The broker password file at `path`, named in the settings, does not exist.
  case passwordFileMissing(path: String)
  /// Another daemon (pid, when it could be read) holds the state directory at `path`.
  case inUse(path: String, pid: Int32?)
  /// `file` could not be read (`readError`), so it is not written over until it can be: its
  /// content is unknown and a save would replace it.
  case notWrittenOver(file: String, readError: String)
  /// `file` holds something this build cannot decode.
  case undecodable(file: String, DocumentError)

  /// A sentence for logs and `puckctl` output.
  public var description: String {
    switch self {
    case .fileSystem(let error): return error.description
    case .unencodable(let file, let error): return "could not save \(file): \(error)"
    case .pairingFileRefused(let path, let refusal): return "refusing the pairing file \(path): \(refusal)"
    case .readerKeyRefused(let path, let refusal): return "refusing the reader key \(path): \(refusal)"
    case .passwordFileRefused(let path, let refusal):
      return "refusing the MQTT password file \(path): \(refusal); not connecting without it"
    case .passwordFileMissing(let path):
      return "the MQTT password file \(path) does not exist; not connecting without it"
    case .inUse(let path, let pid):
      return "another puckd\(pid.map { " (pid \($0))" } ?? "") is already using the state directory \(path); "
        + "stop it first (sudo systemctl stop puckd) or give this one its own --state-dir"
    case .undecodable(let file, let error): return "\(file) cannot be decoded: \(error)"
    case .notWrittenOver(let file, let readError):
      return "\(file) cannot be read (\(readError)); it is not written over until it can be read again"
    }
  }
}

/// Why a pairing file is not trusted (docs/DESIGN.md P4: like ssh with a private key, puckd refuses a
/// pairing file that someone other than itself could have written).
public enum PairingFileRefusal: Hashable, Sendable, CustomStringConvertible {
  /// Owned by another user than the one puckd runs as.
  case wrongOwner(path: String, owner: UInt32, expected: UInt32)
  /// Its mode gives the group or others some access.
  case accessibleToOthers(path: String, mode: UInt32)
  /// A symbolic link, directory or device rather than a plain file.
  case notARegularFile(path: String)

  /// Says what is wrong and the command that fixes it.
  public var description: String {
    switch self {
    case .wrongOwner(let path, let owner, let expected):
      return "it belongs to uid \(owner), but puckd runs as uid \(expected); only puckd's own files "
        + "are trusted (fix: sudo chown \(expected) \(path), or unpair and pair again)"
    case .accessibleToOthers(let path, let mode):
      let octal = String(mode & 0o7777, radix: 8)
      let padded = String(repeating: "0", count: max(0, 4 - octal.count)) + octal
      return "its mode \(padded) lets other users read or change it; it must be 0600 "
        + "(fix: sudo chmod 600 \(path))"
    case .notARegularFile(let path):
      return "\(path) is not a plain file (a symbolic link, directory or device); "
        + "remove it and pair again"
    }
  }
}
