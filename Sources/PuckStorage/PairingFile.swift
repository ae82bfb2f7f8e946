import Glibc
import PuckCore

/// `pairing.json` in the state directory: the paired pucks (docs/DESIGN.md P4, P6).
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

  /// The pairing; nil value when not paired. Throws `.pairingFileRefused` for a file with
  /// the wrong owner, loose permissions or of the wrong type, without touching it.
  public func load() throws(StorageError) -> StateLoad<Pairing> {
    guard let bytes = try readTrusted() else { return StateLoad(value: nil) }
    do {
      return try directory.decodeOrRecover(Self.name, bytes: bytes, as: Pairing.self, recordProblems: true)
    } catch {
      throw .fileSystem(error)
    }
  }

  /// Reads the file back through the same checks as `load`, changing nothing (a corrupt file is
  /// reported, not kept aside): the pre-flight check's look at what is on disk. Nil when there
  /// is no file, or what is wrong with it.
  public func readBack() -> Result<Pairing?, PairingReadBackError> {
    let bytes: [UInt8]?
    do {
      bytes = try readTrusted()
    } catch {
      return .failure(PairingReadBackError(description: error.description))
    }
    guard let bytes else { return .success(nil) }
    do {
      return .success(try DocumentCodec.decode(Pairing.self, from: bytes))
    } catch {
      return .failure(PairingReadBackError(description: "\(Self.name) does not parse: \(error)"))
    }
  }

  /// The file's bytes if it exists and passes the checks.
  private func readTrusted() throws(StorageError) -> [UInt8]? {
    do throws(PrivateFileError) {
      return try PrivateFile.read(path, expectedOwner: expectedOwner)
    } catch {
      switch error {
      case .refused(let refusal): throw .pairingFileRefused(path: path, refusal)
      case .fileSystem(let error): throw .fileSystem(error)
      }
    }
  }

  /// Stores the pairing (mode 0600, atomic, durable), replacing any earlier one.
  public func save(_ pairing: Pairing) throws(StorageError) {
    try directory.save(pairing, name: Self.name, keepsPreviousCopy: false)
  }

  /// Unpairs: removes the file durably (`unlink`, `fsync` of the directory).
  public func remove() throws(StorageError) {
    try directory.remove(Self.name)
  }
}

/// Why `PairingFile.readBack` found the file unusable, in words.
public struct PairingReadBackError: Error, Hashable, Sendable, CustomStringConvertible {
  public var description: String
}
