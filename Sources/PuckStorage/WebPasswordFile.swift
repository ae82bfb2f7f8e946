import Glibc
import PuckSystem

/// Why the web password file was not read or written; each says what to run.
public enum WebPasswordFileError: Error, Hashable, Sendable, CustomStringConvertible {
  /// No password has been set.
  case missing(path: String)
  /// A symbolic link, directory or device rather than a plain file.
  case notARegularFile(path: String)
  /// Owned by someone other than root or the user reading it.
  case wrongOwner(path: String, owner: UInt32)
  /// Others may read it, or anyone but its owner may change it.
  case tooOpen(path: String, mode: UInt32)
  /// The `puckalarm` group does not exist, so the web app could not read the file.
  case noGroup(String)
  /// A system call failed.
  case fileSystem(FileSystemError)

  public var description: String {
    let fix = "set it again with: sudo puckctl web password"
    switch self {
    case .missing(let path): return "no web password is set (\(path) does not exist); \(fix)"
    case .notARegularFile(let path): return "\(path) is not a plain file; remove it and \(fix)"
    case .wrongOwner(let path, let owner):
      return "\(path) belongs to uid \(owner), not root; only root's file is trusted; \(fix)"
    case .tooOpen(let path, let mode):
      return "\(path) has mode \(String(mode & 0o7777, radix: 8)): others may read it or someone other"
        + " than its owner may change it; it must be 0640 or tighter; \(fix)"
    case .noGroup(let group):
      return "there is no \(group) group for the web app to read the password with"
        + " (install the package, or run: sudo systemd-sysusers)"
    case .fileSystem(let error): return error.description
    }
  }
}

/// The web app's password file (README "The dock from a phone"): one line, a libcrypt hash
/// (`$y$...`, never the password), written by `sudo puckctl web password` and read by
/// `puck-web`. It is owned by root and readable by the `puckalarm` group only (mode 0640), the
/// group `puck-web` runs in: root sets the password, the web app can only check one.
public enum WebPasswordFile {
  /// Where the installed dock keeps it.
  public static let systemPath = "/etc/puckalarm/web-password"
  /// The group that may read it.
  public static let group = "puckalarm"

  /// Writes `hash` to `path` atomically and durably. Root writes it `root:puckalarm` 0640
  /// (the group set on the temporary file before the rename, so the path never holds the new
  /// hash with the wrong owner); anyone else (a development dock with `--file`) writes it as
  /// their own, mode 0600.
  public static func write(_ hash: String, to path: String) throws(WebPasswordFileError) {
    var group: gid_t?
    var mode: mode_t = 0o600
    if geteuid() == 0 {
      guard let entry = getgrnam(Self.group) else { throw .noGroup(Self.group) }
      group = entry.pointee.gr_gid
      mode = 0o640
    }
    do throws(FileSystemError) {
      try DurableFile.write(Array((hash + "\n").utf8), to: path, mode: mode, group: group)
    } catch {
      throw .fileSystem(error)
    }
  }

  /// The hash in `path`, after checking that only root (or the reader itself) can have written
  /// it and that others cannot read it.
  public static func read(_ path: String) throws(WebPasswordFileError) -> String {
    let opened: (file: FileDescriptor, info: stat)?
    do throws(FileSystemError) {
      opened = try PrivateFile.open(path)
    } catch {
      throw error.code == ELOOP ? .notARegularFile(path: path) : .fileSystem(error)
    }
    guard let (file, info) = opened else { throw .missing(path: path) }
    defer { file.close() }
    guard info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path: path) }
    guard info.st_uid == 0 || info.st_uid == geteuid() else {
      throw .wrongOwner(path: path, owner: info.st_uid)
    }
    guard info.st_mode & 0o027 == 0 else { throw .tooOpen(path: path, mode: info.st_mode) }
    let bytes: [UInt8]
    do throws(FileSystemError) {
      bytes = try DurableFile.readAll(file.rawValue, path: path)
    } catch {
      throw .fileSystem(error)
    }
    return String(decoding: bytes.prefix(4096).prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
  }
}
