import Foundation
import Glibc
import PuckStorage
import Testing

/// The web password file is trusted only as root (or the reader itself) wrote it, with no
/// access for others; it is read through no symbolic link.
@Suite struct WebPasswordFileTests {
  private func write(_ text: String, to path: String, mode: mode_t, owner: uid_t = geteuid()) throws {
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    #expect(chmod(path, mode) == 0)
    #expect(chown(path, owner, getegid()) == 0)
  }

  @Test("the first line of a file of root's (or the reader's own), mode 0640 or tighter")
  func reads() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.path + "/web-password"
    try write("$y$j9T$salt$digest\nanything after\n", to: path, mode: 0o640)
    #expect(try WebPasswordFile.read(path) == "$y$j9T$salt$digest")
    try write("$y$j9T$salt$digest", to: path, mode: 0o600)
    #expect(try WebPasswordFile.read(path) == "$y$j9T$salt$digest")
  }

  @Test(
    "refused: missing, readable by others, writable by the group, someone else's, a symbolic link, a FIFO")
  func refuses() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.path + "/web-password"
    #expect(throws: WebPasswordFileError.missing(path: path)) { try WebPasswordFile.read(path) }
    try write("$y$x", to: path, mode: 0o644)
    #expect(throws: WebPasswordFileError.tooOpen(path: path, mode: 0o100644)) {
      try WebPasswordFile.read(path)
    }
    try write("$y$x", to: path, mode: 0o660)
    #expect(throws: WebPasswordFileError.tooOpen(path: path, mode: 0o100660)) {
      try WebPasswordFile.read(path)
    }
    if geteuid() == 0 {
      try write("$y$x", to: path, mode: 0o640, owner: 65534)
      #expect(throws: WebPasswordFileError.wrongOwner(path: path, owner: 65534)) {
        try WebPasswordFile.read(path)
      }
    }
    let link = scratch.path + "/link"
    try write("$y$x", to: path, mode: 0o640)
    #expect(symlink(path, link) == 0)
    #expect(throws: WebPasswordFileError.notARegularFile(path: link)) { try WebPasswordFile.read(link) }
    #expect(throws: WebPasswordFileError.notARegularFile(path: scratch.path)) {
      try WebPasswordFile.read(scratch.path)
    }
    // A FIFO with no writer: refused at once, not waited on (found by review).
    let fifo = scratch.path + "/fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect(throws: WebPasswordFileError.notARegularFile(path: fifo)) { try WebPasswordFile.read(fifo) }
  }

  @Test("written whole, as its writer's own 0600, or root:puckalarm 0640 when root writes it")
  func writes() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.path + "/web-password"
    // As root the group must be there (the package's sysusers makes it): made here as the
    // end-to-end tests make it, so the outcome does not hang on which test ran first.
    if geteuid() == 0, getgrnam("puckalarm") == nil {
      let groupadd = Process()
      groupadd.executableURL = URL(fileURLWithPath: "/usr/sbin/groupadd")
      groupadd.arguments = ["--system", "puckalarm"]
      try groupadd.run()
      groupadd.waitUntilExit()  // it fails only when another test made it meanwhile
    }
    guard geteuid() == 0, let group = getgrnam("puckalarm")?.pointee.gr_gid else {
      // Not root: the file is the writer's own.
      try WebPasswordFile.write("$y$hash", to: path)
      var info = stat()
      #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
      return
    }
    try WebPasswordFile.write("$y$hash", to: path)
    var info = stat()
    #expect(stat(path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o640 && info.st_uid == 0 && info.st_gid == group)
    #expect(try WebPasswordFile.read(path) == "$y$hash")
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["web-password"])
  }
}
