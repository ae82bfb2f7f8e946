import Foundation
import Glibc
import PuckCore
import PuckStorage
import Testing

@Suite struct StateDirectoryTests {
  let scratch: ScratchDirectory
  let state: StateDirectory

  init() throws {
    scratch = try ScratchDirectory()
    state = try StateDirectory(path: scratch.path + "/var/lib/puckalarm", clock: { testInstant })
  }

  func file(_ name: String) -> String { state.filePath(name) }

  @Test func createsTheDirectoryPrivate() throws {
    defer { scratch.remove() }
    #expect(mode(ofPath: state.path) == 0o700)
    #expect(mode(ofPath: scratch.path + "/var/lib") == 0o700)
    // Opening it again is fine and changes nothing.
    _ = try StateDirectory(path: state.path)
    #expect(try names(in: state.path).isEmpty)
  }

  @Test func refusesAFileAsTheDirectory() throws {
    defer { scratch.remove() }
    try write([1], toPath: scratch.path + "/plain")
    #expect(throws: StorageError.self) { try StateDirectory(path: scratch.path + "/plain") }
  }

  @Test func missingFileIsEmptyAndNoProblem() throws {
    defer { scratch.remove() }
    let loaded = try state.load("alarms.json", as: Book.self)
    #expect(loaded.value == nil)
    #expect(loaded.problems.isEmpty)
    #expect(try state.problems().isEmpty)
  }

  @Test func roundTripLeavesNoTemporaryFiles() throws {
    defer { scratch.remove() }
    try state.save(Book(alarms: ["06:30"]), name: "alarms.json")
    #expect(try names(in: state.path) == ["alarms.json"])
    #expect(try state.load("alarms.json", as: Book.self).value == Book(alarms: ["06:30"]))
    try state.save(Book(alarms: ["07:00"]), name: "alarms.json")
    #expect(try names(in: state.path) == ["alarms.json", "alarms.json.prev"])
    #expect(try state.load("alarms.json", as: Book.self).value == Book(alarms: ["07:00"]))
    #expect(mode(ofPath: file("alarms.json")) == 0o600)
    let text = String(decoding: bytes(atPath: file("alarms.json")) ?? [], as: UTF8.self)
    #expect(text.contains("\"schemaVersion\" : 1"))
    #expect(text.hasSuffix("}\n"))
  }

  /// Saves two versions, so that `alarms.json.prev` holds the first (the last good copy).
  func saveTwoVersions() throws {
    try state.save(Book(alarms: ["06:30"]), name: "alarms.json")
    try state.save(Book(alarms: ["06:30", "07:15"]), name: "alarms.json")
  }

  func expectKeptAside(_ bad: [UInt8], as keptAs: String, fallback: StateProblem.Fallback) throws {
    let loaded = try state.load("alarms.json", as: Book.self)
    #expect(loaded.problems.count == 1)
    let problem = try #require(loaded.problems.first)
    #expect(problem.file == "alarms.json")
    #expect(problem.keptAs == keptAs)
    #expect(problem.fallback == fallback)
    #expect(problem.detectedAt == testInstant)
    #expect(bytes(atPath: file(keptAs)) == bad)
    #expect(try state.problems() == [problem])
    if fallback == .lastGoodCopy {
      #expect(loaded.value == Book(alarms: ["06:30"]))
      // The good copy is back in place: the next start reads it without a problem.
      let again = try state.load("alarms.json", as: Book.self)
      #expect(again.value == Book(alarms: ["06:30"]))
      #expect(again.problems.isEmpty)
    } else {
      #expect(loaded.value == nil)
    }
  }

  @Test func truncatedFileIsKeptAndTheLastGoodCopyUsed() throws {
    defer { scratch.remove() }
    try saveTwoVersions()
    let whole = try #require(bytes(atPath: file("alarms.json")))
    let truncated = Array(whole.prefix(whole.count / 2))
    try write(truncated, toPath: file("alarms.json"))
    try expectKeptAside(truncated, as: "alarms.json.corrupt-20261202T112233Z", fallback: .lastGoodCopy)
    #expect(try state.problems().first?.reason == "the file is not valid JSON (cut short or overwritten)")
  }

  @Test func emptyFileIsKept() throws {
    defer { scratch.remove() }
    try saveTwoVersions()
    try write([], toPath: file("alarms.json"))
    try expectKeptAside([], as: "alarms.json.corrupt-20261202T112233Z", fallback: .lastGoodCopy)
  }

  @Test func garbageFileIsKeptAndTheLastGoodCopyUsed() throws {
    defer { scratch.remove() }
    try saveTwoVersions()
    let garbage: [UInt8] = [0x00, 0xFF, 0x13, 0x37] + Array("not json at all".utf8)
    try write(garbage, toPath: file("alarms.json"))
    try expectKeptAside(garbage, as: "alarms.json.corrupt-20261202T112233Z", fallback: .lastGoodCopy)
  }

  @Test func corruptFileWithoutGoodCopyIsRemovedAfterBeingKept() throws {
    defer { scratch.remove() }
    try write(Array("{\"schemaVersion\":1,\"payload\":{\"alarms\":[1]}}".utf8), toPath: file("alarms.json"))
    let bad = try #require(bytes(atPath: file("alarms.json")))
    try expectKeptAside(bad, as: "alarms.json.corrupt-20261202T112233Z", fallback: .empty)
    #expect(try names(in: state.path) == ["alarms.json.corrupt-20261202T112233Z", "problems.json"])
    #expect(
      try state.problems().first?.reason.hasPrefix("the file's content is not valid: at payload.alarms[0]")
        == true)
  }

  @Test func secondCorruptionDoesNotOverwriteTheFirstCopy() throws {
    defer { scratch.remove() }
    try saveTwoVersions()
    let first = Array("first garbage".utf8)
    try write(first, toPath: file("alarms.json"))
    _ = try state.load("alarms.json", as: Book.self)
    let second = Array("{\"schemaVersion\":1,\"payl".utf8)
    try write(second, toPath: file("alarms.json"))
    let loaded = try state.load("alarms.json", as: Book.self)
    #expect(loaded.problems.first?.keptAs == "alarms.json.corrupt-20261202T112233Z-2")
    #expect(bytes(atPath: file("alarms.json.corrupt-20261202T112233Z")) == first)
    #expect(bytes(atPath: file("alarms.json.corrupt-20261202T112233Z-2")) == second)
    #expect(
      try state.problems().map(\.keptAs) == [
        "alarms.json.corrupt-20261202T112233Z", "alarms.json.corrupt-20261202T112233Z-2",
      ])
  }

  @Test func newerSchemaVersionIsRefusedAndKept() throws {
    defer { scratch.remove() }
    try saveTwoVersions()
    let newer = Array(
      "{\"schemaVersion\": 2, \"payload\": {\"alarms\": [\"06:30\"], \"snooze\": true}}\n".utf8)
    try write(newer, toPath: file("alarms.json"))
    try expectKeptAside(newer, as: "alarms.json.corrupt-20261202T112233Z", fallback: .lastGoodCopy)
    #expect(
      try state.problems().first?.reason
        == "the file is in format version 2, written by a newer puckd; this one reads up to version 1")
  }

  @Test func aCorruptFileIsNeverPromotedToTheLastGoodCopy() throws {
    defer { scratch.remove() }
    try saveTwoVersions()
    try write(Array("garbage".utf8), toPath: file("alarms.json"))
    // Saving over a corrupt file (without loading it first) must keep the older good copy.
    try state.save(Book(alarms: ["09:00"]), name: "alarms.json")
    let previous = try #require(bytes(atPath: file("alarms.json.prev")))
    #expect(try DocumentCodec.decode(Book.self, from: previous) == Book(alarms: ["06:30"]))
  }

  @Test func problemsLastUntilAcknowledged() throws {
    defer { scratch.remove() }
    try saveTwoVersions()
    try write(Array("garbage".utf8), toPath: file("alarms.json"))
    _ = try state.load("alarms.json", as: Book.self)
    // A restarted daemon still sees it.
    let reopened = try StateDirectory(path: state.path)
    #expect(try reopened.problems().count == 1)
    #expect(
      try reopened.problems().first?.description
        == "alarms.json could not be read: the file is not valid JSON (cut short or overwritten); kept as "
        + "alarms.json.corrupt-20261202T112233Z; using the last good copy")
    try reopened.acknowledgeProblems()
    #expect(try reopened.problems().isEmpty)
    #expect(FileManager.default.fileExists(atPath: file("alarms.json.corrupt-20261202T112233Z")))
  }

  @Test func removeDeletesTheDocumentAndItsCopy() throws {
    defer { scratch.remove() }
    try saveTwoVersions()
    try state.remove("alarms.json")
    #expect(try names(in: state.path).isEmpty)
    try state.remove("alarms.json")
  }

  @Test func staleTemporaryFilesAreRemoved() throws {
    defer { scratch.remove() }
    try state.save(Book(alarms: []), name: "alarms.json")
    try write([1, 2], toPath: file(".alarms.json.tmp-123-456"))
    #expect(try state.removeStaleTemporaryFiles() == [".alarms.json.tmp-123-456"])
    #expect(try names(in: state.path) == ["alarms.json"])
  }

  @Test func aFileThatCannotBeReadThrowsAndItsLastGoodCopyIsReadWithoutTouchingIt() throws {
    defer { scratch.remove() }
    try saveTwoVersions()
    let current = file("alarms.json")
    unlink(current)
    #expect(mkdir(current, 0o700) == 0)  // read(2) gives EISDIR, even for root
    #expect(throws: StorageError.self) { try state.load("alarms.json", as: Book.self) }
    #expect(try state.loadLastGoodCopy("alarms.json", as: Book.self) == Book(alarms: ["06:30"]))
    #expect(
      try names(in: state.path) == ["alarms.json", "alarms.json.prev"], "nothing kept aside or written")
    #expect(try state.problems().isEmpty, "a read error is not a decoding problem")
    #expect(throws: StorageError.self, "a save cannot make it the last good copy") {
      try state.save(Book(alarms: []), name: "alarms.json")
    }
    try write(Array("garbage".utf8), toPath: file("guards.json.prev"))
    #expect(try state.loadLastGoodCopy("guards.json", as: Book.self) == nil, "a bad copy is no copy")
    #expect(try state.loadLastGoodCopy("pairing.json", as: Book.self) == nil)
  }
}

@Suite struct DurableFileTests {
  @Test func writeReplacesAtomicallyWithTheGivenMode() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.path + "/file"
    try DurableFile.write(Array("one".utf8), to: path, mode: 0o640)
    try DurableFile.write(Array("two".utf8), to: path, mode: 0o600)
    #expect(bytes(atPath: path) == Array("two".utf8))
    #expect(mode(ofPath: path) == 0o600)
    #expect(try names(in: scratch.path) == ["file"])
    #expect(try DurableFile.read(path) == Array("two".utf8))
    #expect(try DurableFile.read(scratch.path + "/absent") == nil)
  }

  @Test func createNeverOverwrites() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.path + "/copy"
    try DurableFile.create([1], at: path, mode: 0o600)
    do {
      try DurableFile.create([2], at: path, mode: 0o600)
      Issue.record("create replaced an existing file")
    } catch {
      #expect(error.code == EEXIST)
      #expect(error.path == path)
    }
    #expect(bytes(atPath: path) == [1])
    #expect(try names(in: scratch.path) == ["copy"])
  }

  @Test func errorsNameThePathAndTheSystemReason() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.path + "/missing/file"
    do {
      try DurableFile.write([1], to: path, mode: 0o600)
      Issue.record("writing into a missing directory succeeded")
    } catch {
      #expect(error.code == ENOENT)
      #expect(error.path.hasPrefix(scratch.path + "/missing/.file.tmp-"))
      #expect(error.description.hasSuffix("No such file or directory (errno 2)"))
    }
  }
}
