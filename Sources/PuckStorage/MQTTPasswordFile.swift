import Glibc
import PuckCore

/// The broker account's password file (`[mqtt] password_file` on the dock, `--password-file`
/// on the node): read with the same checks as the reader keys (docs/DESIGN.md M1, M6), a plain
/// file owned by the user it runs as, mode 0600. Named but missing or refused is an error, never
/// a silent anonymous login (issue 22 item 7). The password is the first line.
public enum MQTTPasswordFile {
  /// The password in `path`.
  public static func read(_ path: String, expectedOwner: uid_t = geteuid()) throws(StorageError) -> String {
    let bytes: [UInt8]?
    do throws(PrivateFileError) {
      bytes = try PrivateFile.read(path, expectedOwner: expectedOwner)
    } catch {
      switch error {
      case .refused(let refusal): throw .passwordFileRefused(path: path, refusal)
      case .fileSystem(let error): throw .fileSystem(error)
      }
    }
    guard let bytes else { throw .passwordFileMissing(path: path) }
    return String(decoding: bytes.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
  }
}
