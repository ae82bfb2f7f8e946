import Foundation
import Glibc
import PuckCore
import Testing

@testable import PuckStorage

/// Issue 10 item 1: `StateDirectory.save` stopped between each pair of its steps. Each state a
/// crash (or a power cut before the directory's fsync) can leave on disk is built the way the
/// steps build it: the current file linked to `NAME.prev`, the temporary file created, partly
/// and wholly written, renamed over the file. In every one, start-up removes the temporary file
/// and the document reads as the old or the new version, whole: never a mix, never a problem.
@Suite("torn writes of a state document")
struct TornWriteTests {
  /// One state the steps can leave, with the versions the document may read as.
  struct Torn: CustomTestStringConvertible, Sendable {
    let name: String
    /// The file, `.prev` and temporary file contents: 0 = v0, 1 = v1, 2 = v2, 3 = half of v2.
    let file: Int
    let previous: Int
    let temporary: Int?
    let reads: Int
    var testDescription: String { name }
  }

  static let states: [Torn] = [
    Torn(name: "before anything", file: 1, previous: 0, temporary: nil, reads: 1),
    Torn(name: "after the link to .prev", file: 1, previous: 1, temporary: nil, reads: 1),
    Torn(name: "temporary created, empty", file: 1, previous: 1, temporary: 0, reads: 1),
    Torn(name: "temporary half written", file: 1, previous: 1, temporary: 3, reads: 1),
    Torn(name: "temporary written and flushed", file: 1, previous: 1, temporary: 2, reads: 1),
    Torn(
      name: "link lost (no directory fsync yet), temporary half written", file: 1, previous: 0, temporary: 3,
      reads: 1),
    Torn(name: "renamed", file: 2, previous: 1, temporary: nil, reads: 2),
    Torn(name: "renamed, link lost", file: 2, previous: 0, temporary: nil, reads: 2),
  ]

  @Test(
    "start-up after each step: the old or the new version, whole; temporary files gone", arguments: states)
  func eachStep(_ torn: Torn) throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let state = try StateDirectory(path: scratch.path + "/state", clock: { testInstant })
    let versions = [Book(alarms: ["v0"]), Book(alarms: ["v1"]), Book(alarms: ["v1", "v2"])]
    // The bytes each version has on disk, as save writes them.
    var encoded: [[UInt8]] = []
    for version in versions {
      try state.save(version, name: "alarms.json", keepsPreviousCopy: false)
      encoded.append(try #require(bytes(atPath: state.filePath("alarms.json"))))
    }
    func contents(_ code: Int) -> [UInt8] {
      code == 3 ? Array(encoded[2].prefix(encoded[2].count / 2)) : encoded[code]
    }
    let file = state.filePath("alarms.json")
    try Data(contents(torn.file)).write(to: URL(fileURLWithPath: file))
    try Data(contents(torn.previous)).write(to: URL(fileURLWithPath: file + ".prev"))
    if let temporary = torn.temporary {
      let path = scratch.path + "/state/" + DurableFile.temporaryPrefix(for: "alarms.json") + "x1Y2z3"
      try Data(contents(temporary)).write(to: URL(fileURLWithPath: path))
    }

    let removed = try state.removeStaleTemporaryFiles()
    #expect(removed.count == (torn.temporary == nil ? 0 : 1))
    let loaded = try state.load("alarms.json", as: Book.self)
    #expect(loaded.value == versions[torn.reads])
    #expect(loaded.problems.isEmpty, "no state is mistaken for corruption")
    #expect(try state.problems().isEmpty)
    let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/state")
    #expect(!names.contains { $0.contains(".tmp-") || $0.contains(".corrupt-") }, "\(names)")
  }
}

extension TornWriteTests {
  /// Found by `TornWriteKillTests` (puckd killed by strace before a call of its save): a save
  /// stopped after linking the document to `NAME.prev` leaves both names on one file, and
  /// rename(2) between two links to one file does nothing, so the next save's temporary link
  /// name stayed in the directory until the daemon's next start.
  @Test("a save after one stopped past its .prev link: no temporary name left behind")
  func saveOverSharedLink() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let state = try StateDirectory(path: scratch.path + "/state", clock: { testInstant })
    let file = state.filePath("alarms.json")
    try state.save(Book(alarms: ["v1"]), name: "alarms.json", keepsPreviousCopy: false)
    #expect(link(file, file + ".prev") == 0)

    try state.save(Book(alarms: ["v1", "v2"]), name: "alarms.json")
    let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/state")
    #expect(!names.contains { $0.contains(".tmp-") }, "\(names)")
    #expect(try state.load("alarms.json", as: Book.self).value == Book(alarms: ["v1", "v2"]))
  }
}
