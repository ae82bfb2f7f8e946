import Glibc
import PuckCore

/// The enrolled remote readers (docs/DESIGN.md M1): a root-only file `reader-NAME.key` each in
/// the state directory, holding the reader's key as 64 hex digits. The same trust checks as the
/// pairing file apply: whoever could write a key could end a wake-up from anywhere.
public struct ReaderKeyFiles: Sendable {
  public let directory: StateDirectory
  /// The uid the files must belong to.
  public let expectedOwner: uid_t

  public init(directory: StateDirectory, expectedOwner: uid_t = geteuid()) {
    self.directory = directory
    self.expectedOwner = expectedOwner
  }

  /// The key file of reader `name`.
  public func path(_ name: String) -> String { directory.filePath("reader-\(name).key") }

  /// The enrolled readers' names, sorted.
  public func names() throws(StorageError) -> [String] {
    guard let stream = opendir(directory.path) else {
      throw .fileSystem(FileSystemError(operation: "opendir", path: directory.path, code: errno))
    }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let file = withUnsafeBytes(of: entry.pointee.d_name) {
        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard file.hasPrefix("reader-"), file.hasSuffix(".key") else { continue }
      let name = String(file.dropFirst("reader-".count).dropLast(".key".count))
      if RemoteTopic.isValidName(name) { names.append(name) }
    }
    return names.sorted()
  }

  /// Reader `name`'s key text; nil when it is not enrolled.
  public func read(_ name: String) throws(StorageError) -> String? {
    try Self.readNodeKey(path(name), expectedOwner: expectedOwner)
  }

  /// Enrols reader `name` with `key` (mode 0600, durable); fails with `EEXIST` if it is enrolled.
  public func create(_ name: String, key: String) throws(StorageError) {
    do throws(FileSystemError) {
      try DurableFile.create(Array((key + "\n").utf8), at: path(name), mode: 0o600)
    } catch {
      throw .fileSystem(error)
    }
  }

  /// Removes reader `name`'s key durably, and what was taken from it; false when it was not
  /// enrolled.
  public func remove(_ name: String) throws(StorageError) -> Bool {
    do throws(FileSystemError) {
      let removed = try DurableFile.remove(path(name))
      _ = try DurableFile.remove(seenPath(name))
      return removed
    } catch {
      throw .fileSystem(error)
    }
  }

  /// The file that keeps what was taken from reader `name` (docs/DESIGN.md M3): the sender,
  /// counter and clock of the last scan, so a scan is taken at most once across restarts.
  public func seenPath(_ name: String) -> String { directory.filePath("reader-\(name).seen") }

  /// What was taken from reader `name` by earlier runs; nil when nothing was.
  public func readSeen(_ name: String) throws(StorageError) -> RemoteSequence? {
    let path = seenPath(name)
    let bytes: [UInt8]
    do throws(FileSystemError) {
      guard let read = try DurableFile.read(path) else { return nil }
      bytes = read
    } catch {
      throw .fileSystem(error)
    }
    do throws(DocumentError) {
      return try DocumentCodec.decode(RemoteSequence.self, from: bytes)
    } catch {
      throw .undecodable(file: path, error)
    }
  }

  /// Saves what was taken from reader `name`, durably (written, synced and renamed into place)
  /// before the scan it follows is acted on.
  public func saveSeen(_ name: String, _ sequence: RemoteSequence) throws(StorageError) {
    let path = seenPath(name)
    let bytes: [UInt8]
    do throws(DocumentError) {
      bytes = try DocumentCodec.encode(sequence)
    } catch {
      throw .unencodable(file: path, error)
    }
    do throws(FileSystemError) {
      try DurableFile.write(bytes, to: path, mode: StateDirectory.fileMode)
    } catch {
      throw .fileSystem(error)
    }
  }

}

extension ReaderKeyFiles {
  /// A reader node's own key file (`/etc/puckalarm/reader.key`), with the same checks: a plain
  /// file owned by the user the node runs as, mode 0600. Nil when it does not exist.
  public static func readNodeKey(_ path: String, expectedOwner: uid_t = geteuid()) throws(StorageError)
    -> String?
  {
    do throws(PrivateFileError) {
      return try PrivateFile.read(path, expectedOwner: expectedOwner).map {
        String(decoding: $0, as: UTF8.self)
      }
    } catch {
      switch error {
      case .refused(let refusal): throw .readerKeyRefused(path: path, refusal)
      case .fileSystem(let error): throw .fileSystem(error)
      }
    }
  }
}
