import PuckCore
import PuckStorage

/// The state files puckd could not read at all (an I/O error such as `EIO`, `EISDIR` or
/// `ELOOP`, as opposed to content that does not decode, which `StateDirectory` keeps aside and
/// replaces by the last good copy).
///
/// Such a file is never written over while the error lasts (issue 8 item 4): its content is
/// unknown, and a save would replace it, and then its last good copy, with the little the
/// daemon knows without it. The daemon works on from memory, retries the read, and status shows
/// each file here as a reason against "protected".
struct UnreadableStateFiles {
  /// The read error of each file, by file name.
  private var errors: [String: String] = [:]

  /// Whether every state file could be read.
  var isEmpty: Bool { errors.isEmpty }

  /// Whether `name` could not be read and is held.
  func contains(_ name: String) -> Bool {
    errors[name] != nil
  }

  /// Records that `name` could not be read.
  mutating func add(_ name: String, error: StorageError) {
    errors[name] = error.description
  }

  /// Records that `name` can be read again; returns whether it was held.
  @discardableResult
  mutating func remove(_ name: String) -> Bool {
    errors.removeValue(forKey: name) != nil
  }

  /// The error to refuse a save of `name` with, or nil when it may be written.
  func refusal(toWrite name: String) -> StorageError? {
    errors[name].map { .notWrittenOver(file: name, readError: $0) }
  }

  /// The held files with their errors, sorted by name, as status reports them.
  var files: [StatusSnapshot.UnreadableFile] {
    errors.sorted { $0.key < $1.key }.map { StatusSnapshot.UnreadableFile(file: $0.key, error: $0.value) }
  }
}
