import Glibc
import PuckSystem

/// Whole-file reads and crash-safe writes with plain system calls (docs/DESIGN.md D1).
///
/// A write goes to a new temporary file in the same directory, is flushed with `fsync`, renamed
/// over the target, and the directory is flushed too, so that after a power loss the path holds
/// either the old bytes or the new ones, never a mix or nothing.
public enum DurableFile {
  /// Writes `bytes` to `path` atomically and durably, with exactly `mode` (not reduced by the
  /// umask): temp file (`O_CREAT|O_EXCL`), write, `fsync`, `rename`, `fsync` of the directory.
  /// With `group`, the file has that group from before it is renamed into place.
  public static func write(
    _ bytes: [UInt8], to path: String, mode: mode_t, group: gid_t? = nil
  ) throws(FileSystemError) {
    let temporary = try createTemporary(containing: bytes, besides: path, mode: mode, group: group)
    do throws(FileSystemError) {
      try systemCall("rename \(temporary) to", path: path) { rename(temporary, path) }
    } catch {
      unlink(temporary)
      throw error
    }
    try syncDirectory(of: path)
  }

  /// Writes `bytes` to a new file at `path` durably, failing with `EEXIST` rather than replacing
  /// anything already there: temp file, `fsync`, `link` to `path`, `unlink` temp, `fsync` of
  /// the directory. For copies that must never overwrite an earlier one. `group` as in `write`.
  public static func create(
    _ bytes: [UInt8], at path: String, mode: mode_t, group: gid_t? = nil
  ) throws(FileSystemError) {
    let temporary = try createTemporary(containing: bytes, besides: path, mode: mode, group: group)
    defer { unlink(temporary) }
    try systemCall("link \(temporary) to", path: path) { link(temporary, path) }
    try syncDirectory(of: path)
  }

  /// The whole content of `path`, or nil when it does not exist.
  public static func read(_ path: String) throws(FileSystemError) -> [UInt8]? {
    let file: FileDescriptor
    do throws(FileSystemError) {
      file = try .open(path, O_RDONLY | O_CLOEXEC)
    } catch  where error.code == ENOENT {
      return nil
    }
    defer { file.close() }
    return try readAll(file.rawValue, path: path)
  }

  /// Removes `path` durably (`unlink`, then `fsync` of the directory). Returns false when there
  /// was nothing to remove.
  @discardableResult
  public static func remove(_ path: String) throws(FileSystemError) -> Bool {
    do throws(FileSystemError) {
      try systemCall("remove", path: path) { unlink(path) }
    } catch  where error.code == ENOENT {
      return false
    }
    try syncDirectory(of: path)
    return true
  }

  /// Flushes the directory holding `path`, so that renames, links and removals in it survive a
  /// power loss.
  public static func syncDirectory(of path: String) throws(FileSystemError) {
    let directory = directoryName(of: path)
    let file = try FileDescriptor.open(
      directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, operation: "open directory")
    defer { file.close() }
    try systemCall("fsync directory", path: directory) { fsync(file.rawValue) }
  }

  /// The directory part of a path: `/a/b` → `/a`, `b` → `.`, `/b` → `/`.
  static func directoryName(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// The file-name part of a path: `/a/b` → `b`.
  static func baseName(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }

  /// The prefix of temporary files made for `base` (`.alarms.json.tmp-`); hidden, and never a
  /// name a state file can have.
  static func temporaryPrefix(for base: String) -> String {
    ".\(base).tmp-"
  }

  /// Creates, fills and flushes a temporary file next to `path`; returns its path.
  private static func createTemporary(
    containing bytes: [UInt8], besides path: String, mode: mode_t, group: gid_t? = nil
  ) throws(FileSystemError) -> String {
    let prefix = directoryName(of: path) + "/" + temporaryPrefix(for: baseName(of: path))
    let (temporary, file) = try createUnique(prefix, mode: mode)
    defer { file.close() }
    do throws(FileSystemError) {
      // open() applies the umask; the mode must be exactly what was asked (0600 for pairing).
      if let group {
        try systemCall("set the group of", path: temporary) { fchown(file.rawValue, uid_t.max, group) }
      }
      try systemCall("set the mode of", path: temporary) { fchmod(file.rawValue, mode) }
      try writeAll(bytes, to: file.rawValue, path: temporary)
      try systemCall("fsync", path: temporary) { fsync(file.rawValue) }
    } catch {
      unlink(temporary)
      throw error
    }
    return temporary
  }

  /// A new file named `prefix` and a random suffix, made with `O_EXCL` (never a file that was
  /// there already): its path and descriptor.
  private static func createUnique(_ prefix: String, mode: mode_t) throws(FileSystemError)
    -> (path: String, file: FileDescriptor)
  {
    while true {
      let path = prefix + "\(getpid())-\(UInt32.random(in: .min ... .max))"
      do throws(FileSystemError) {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        return (path, try .open(path, flags, mode: mode, operation: "create"))
      } catch  where error.code == EEXIST {
        continue
      }
    }
  }

  /// Writes every byte, continuing after short writes (PuckSystem's `writeAll`).
  static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(FileSystemError) {
    do throws(SystemError) {
      try PuckSystem.writeAll(bytes, to: descriptor)
    } catch {
      throw FileSystemError(operation: "write", path: path, code: error.code)
    }
  }

  /// Reads until end of file.
  static func readAll(_ descriptor: Int32, path: String) throws(FileSystemError) -> [UInt8] {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = try systemCall("read", path: path) {
        chunk.withUnsafeMutableBytes { buffer in Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
      }
      if count == 0 { return result }
      result.append(contentsOf: chunk[0..<count])
    }
  }

  /// The names in a directory, without `.` and `..`.
  static func listDirectory(_ path: String) throws(FileSystemError) -> [String] {
    let stream: OpaquePointer
    do throws(SystemError) {
      stream = try systemCall("list", returningPointer: { opendir(path) })
    } catch {
      throw FileSystemError(operation: "list", path: path, code: error.code)
    }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }
}
