import Foundation
import Glibc
import PuckPassword
import Testing

/// `sudo puckctl web password`: the hash (never the password) in a file root:puckalarm 0640,
/// written whole; refused for anyone but root on the system file.
@Suite("puckctl web password", .serialized)
struct WebPasswordCommandTests {
  private func directory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "puck-web-password-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  @Test("as root: a yescrypt hash of the password, root:puckalarm 0640, nothing else left in the directory")
  func storesTheHash() throws {
    let group = try puckalarmGroup()
    let folder = try directory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("web-password").path
    let result = try run("puckctl", ["web", "password", "--file", path], stdin: "a long passphrase\n")
    #expect(result.status == 0, "\(result.stderr)")
    var info = stat()
    #expect(stat(path, &info) == 0)
    #expect(info.st_mode & 0o7777 == 0o640)
    #expect(info.st_uid == 0)
    #expect(info.st_gid == group)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text.hasPrefix("$y$") && text.hasSuffix("\n"))
    #expect(!text.contains("passphrase"))
    let hash = try PasswordHash(encoded: String(text.dropLast()))
    #expect(hash.matches("a long passphrase"))
    #expect(!hash.matches("a long passphrasE"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["web-password"])

    // Set again: replaced whole, a new salt.
    #expect(
      try run("puckctl", ["web", "password", "--file", path], stdin: "another passphrase\n").status == 0)
    let second = try String(contentsOfFile: path, encoding: .utf8)
    #expect(second != text)
    #expect(try PasswordHash(encoded: String(second.dropLast())).matches("another passphrase"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["web-password"])
  }

  @Test("a short password or none at all changes nothing")
  func refusesBadPasswords() throws {
    let folder = try directory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("web-password").path
    let short = try run("puckctl", ["web", "password", "--file", path], stdin: "short\n")
    #expect(short.status == 1)
    #expect(short.stderr.contains("at least 8 characters"))
    let empty = try run("puckctl", ["web", "password", "--file", path], stdin: "")
    #expect(empty.status == 64)
    #expect(!FileManager.default.fileExists(atPath: path))
  }

  @Test("anyone but root is refused the system file, and told to use sudo")
  func systemFileNeedsRoot() throws {
    let result = try runExternal(
      "/usr/bin/setpriv",
      ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.url("puckctl").path, "web", "password"])
    #expect(result.status == 77)
    #expect(result.stderr.contains("sudo puckctl web password"))
  }
}
