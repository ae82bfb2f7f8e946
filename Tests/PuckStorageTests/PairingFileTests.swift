import Foundation
import Glibc
import PuckCore
import PuckStorage
import Testing

@Suite struct PairingFileTests {
  let scratch: ScratchDirectory
  let pairing: PairingFile
  let tag: Pairing

  init() throws {
    scratch = try ScratchDirectory()
    pairing = PairingFile(
      directory: try StateDirectory(path: scratch.path + "/state", clock: { testInstant }))
    tag = Pairing(pucks: [PairedTag(uid: try TagUID(parsing: "04:A2:3B:11:22:33:44"), pairedAt: testInstant)])
  }

  func expectRefused(_ expected: PairingFileRefusal, unchanged before: [UInt8], mode: mode_t) {
    do {
      _ = try pairing.load()
      Issue.record("the pairing file was accepted")
    } catch {
      #expect(error == .pairingFileRefused(path: pairing.path, expected))
    }
    #expect(bytes(atPath: pairing.path) == before)
    #expect(PuckStorageTests.mode(ofPath: pairing.path) == mode)
    #expect((try? names(in: pairing.directory.path)) == ["pairing.json"])
  }

  @Test func roundTripWritesOwnerOnlyFile() throws {
    defer { scratch.remove() }
    #expect(try pairing.load().value == nil)
    try pairing.save(tag)
    #expect(mode(ofPath: pairing.path) == 0o600)
    #expect(try pairing.load().value == tag)
    let text = String(decoding: bytes(atPath: pairing.path) ?? [], as: UTF8.self)
    #expect(text.contains("\"uid\" : \"04:A2:3B:11:22:33:44\""))
    #expect(try names(in: pairing.directory.path) == ["pairing.json"])
  }

  @Test func groupOrWorldReadableFileIsRefusedAndLeftAlone() throws {
    defer { scratch.remove() }
    try pairing.save(tag)
    chmod(pairing.path, 0o644)
    let before = try #require(bytes(atPath: pairing.path))
    expectRefused(.accessibleToOthers(path: pairing.path, mode: 0o100644), unchanged: before, mode: 0o644)
    chmod(pairing.path, 0o640)
    expectRefused(.accessibleToOthers(path: pairing.path, mode: 0o100640), unchanged: before, mode: 0o640)
    let message = StorageError.pairingFileRefused(
      path: pairing.path, .accessibleToOthers(path: pairing.path, mode: 0o100644)
    ).description
    #expect(
      message
        == "refusing the pairing file \(pairing.path): its mode 0644 lets other users read or change it; "
        + "it must be 0600 (fix: sudo chmod 600 \(pairing.path))")
  }

  @Test(.enabled(if: geteuid() == 0, "chown to another user needs root; run the tests as root to cover it"))
  func fileOwnedByAnotherUserIsRefused() throws {
    defer { scratch.remove() }
    try pairing.save(tag)
    #expect(chown(pairing.path, 65534, 65534) == 0)
    let before = try #require(bytes(atPath: pairing.path))
    expectRefused(
      .wrongOwner(path: pairing.path, owner: 65534, expected: geteuid()), unchanged: before, mode: 0o600)
  }

  @Test func fileOwnedByAnotherUserIsRefusedWhateverTheTestUser() throws {
    // Same check from the other side, runnable without root: expect an owner the file lacks.
    defer { scratch.remove() }
    try pairing.save(tag)
    let strict = PairingFile(directory: pairing.directory, expectedOwner: geteuid() &+ 1)
    do {
      _ = try strict.load()
      Issue.record("the pairing file was accepted")
    } catch {
      #expect(
        error
          == .pairingFileRefused(
            path: pairing.path, .wrongOwner(path: pairing.path, owner: geteuid(), expected: geteuid() &+ 1)))
    }
  }

  @Test func symbolicLinkIsRefused() throws {
    defer { scratch.remove() }
    try write(Array("{}".utf8), toPath: scratch.path + "/elsewhere.json")
    symlink(scratch.path + "/elsewhere.json", pairing.path)
    do {
      _ = try pairing.load()
      Issue.record("a symbolic link was followed")
    } catch {
      #expect(error == .pairingFileRefused(path: pairing.path, .notARegularFile(path: pairing.path)))
    }
  }

  @Test("a FIFO in the pairing file's place is refused at once, not waited on for a writer")
  func fifoIsRefusedWithoutWaiting() throws {
    defer { scratch.remove() }
    try #require(mkfifo(pairing.path, 0o600) == 0)
    // Loaded on a thread of its own: an open that waits for a writer fails the test instead
    // of hanging the suite.
    let finished = DispatchSemaphore(value: 0)
    let outcome = LoadOutcome()
    let file = pairing
    Thread.detachNewThread {
      outcome.set(Result { () throws(StorageError) in try file.load() })
      finished.signal()
    }
    guard finished.wait(timeout: .now() + 10) == .success else {
      Issue.record("loading the pairing file waited for a writer on the FIFO")
      let writer = open(pairing.path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
      finished.wait()
      if writer >= 0 { close(writer) }
      return
    }
    #expect(throws: StorageError.pairingFileRefused(path: pairing.path, .notARegularFile(path: pairing.path)))
    {
      _ = try outcome.get()
    }
  }

  @Test func corruptPairingMeansNotPairedAndNoOlderTagComesBack() throws {
    defer { scratch.remove() }
    let older = Pairing(
      pucks: [PairedTag(uid: try TagUID(parsing: "04:00:00:00:00:00:01"), pairedAt: Instant(unixSeconds: 0))])
    try pairing.save(older)
    try pairing.save(tag)
    #expect(try names(in: pairing.directory.path) == ["pairing.json"])
    let truncated = Array((bytes(atPath: pairing.path) ?? []).prefix(20))
    try write(truncated, toPath: pairing.path)
    chmod(pairing.path, 0o600)
    let loaded = try pairing.load()
    #expect(loaded.value == nil)
    #expect(loaded.problems.first?.fallback == .empty)
    #expect(bytes(atPath: pairing.directory.filePath("pairing.json.corrupt-20261202T112233Z")) == truncated)
  }

  @Test("a version 1 file (one tag) reads as one puck named primary; the next save writes version 2")
  func version1Migrates() throws {
    defer { scratch.remove() }
    try FileManager.default.createDirectory(atPath: pairing.directory.path, withIntermediateDirectories: true)
    let old =
      #"{"payload": {"uid": "04:A2:3B:11:22:33:44", "pairedAt": "2026-01-01T00:00:00Z"}, "schemaVersion": 1}"#
    try write(Array(old.utf8), toPath: pairing.path)
    chmod(pairing.path, 0o600)
    var loaded = try #require(try pairing.load().value)
    #expect(loaded.pucks.map(\.name) == ["primary"])
    #expect(loaded.pucks.first?.uid.description == "04:A2:3B:11:22:33:44")
    #expect(loaded.pucks.first?.lastSeen == nil)
    loaded.pucks.append(
      PairedTag(
        uid: try TagUID(parsing: "04:11:22:33:44:55:66"), pairedAt: testInstant, name: "backup in the car"))
    try pairing.save(loaded)
    let text = String(decoding: bytes(atPath: pairing.path) ?? [], as: UTF8.self)
    #expect(text.contains("\"schemaVersion\" : 2"), "\(text)")
    #expect(try pairing.load().value == loaded)
    guard case .success(let back?) = pairing.readBack() else {
      Issue.record("readBack failed")
      return
    }
    #expect(back.pucks.map(\.name) == ["primary", "backup in the car"])
  }

  @Test func unpairRemovesTheFile() throws {
    defer { scratch.remove() }
    try pairing.save(tag)
    try pairing.remove()
    #expect(!FileManager.default.fileExists(atPath: pairing.path))
    #expect(try pairing.load().value == nil)
    try pairing.remove()
  }
}

/// What a load on another thread returned, handed over under a lock.
private final class LoadOutcome: @unchecked Sendable {
  private let lock = NSLock()
  private var result: Result<StateLoad<Pairing>, StorageError>?

  func set(_ result: Result<StateLoad<Pairing>, StorageError>) { lock.withLock { self.result = result } }

  func get() throws(StorageError) -> StateLoad<Pairing>? { try lock.withLock { result }?.get() }
}
