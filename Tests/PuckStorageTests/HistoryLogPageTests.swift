import Foundation
import Glibc
import PuckCore
import Testing

@testable import PuckStorage

/// `HistoryLog.readPage`: pages read backwards from the end, joined by cursors, with the bad
/// and torn line guarantees of `read` for the lines they reach.
@Suite struct HistoryLogPageTests {
  let scratch: ScratchDirectory
  let history: HistoryLog<Event>

  init() throws {
    scratch = try ScratchDirectory()
    history = HistoryLog(directory: try StateDirectory(path: scratch.path + "/state", clock: { testInstant }))
  }

  func events(_ range: Range<Int>) -> [Event] { range.map { Event(what: "e\($0)") } }

  /// Every page from the newest back, by following `nextBefore`.
  func allPages(limit: Int) throws -> [[Event]] {
    var pages: [[Event]] = []
    var before: Int?
    repeat {
      let page = try #require(try history.readPage(before: before, limit: limit))
      pages.append(page.entries)
      before = page.nextBefore
    } while before != nil && pages.count < 1000
    return pages
  }

  @Test func noFileIsAnEmptyLastPage() throws {
    defer { scratch.remove() }
    let page = try #require(try history.readPage(limit: 20))
    #expect(page.entries.isEmpty)
    #expect(page.nextBefore == nil)
    #expect(try history.readPage(before: 10, limit: 20) == nil)
  }

  @Test func pagesJoinWithoutGapsOrOverlaps() throws {
    defer { scratch.remove() }
    for event in events(0..<50) { try history.append(event) }
    let first = try #require(try history.readPage(limit: 7))
    #expect(first.entries == events(43..<50))
    #expect(first.nextBefore != nil)
    let pages = try allPages(limit: 7)
    #expect(pages.count == 8)
    #expect(pages.reversed().flatMap { $0 } == events(0..<50))
    #expect(pages.last == events(0..<1))
  }

  @Test func aPageThatEndsExactlyAtTheStartSaysThereIsNothingOlder() throws {
    defer { scratch.remove() }
    for event in events(0..<10) { try history.append(event) }
    let page = try #require(try history.readPage(limit: 10))
    #expect(page.entries == events(0..<10))
    #expect(page.nextBefore == nil)
  }

  @Test func aCursorKeepsItsPlaceWhileEntriesAreAppended() throws {
    defer { scratch.remove() }
    for event in events(0..<30) { try history.append(event) }
    let cursor = try #require(try history.readPage(limit: 10)?.nextBefore)
    for event in events(30..<40) { try history.append(event) }
    #expect(try history.readPage(before: cursor, limit: 10)?.entries == events(10..<20))
  }

  @Test func aForgedCursorIsRefusedAndNothingIsReportedCorrupt() throws {
    defer { scratch.remove() }
    for event in events(0..<10) { try history.append(event) }
    let size = try #require(bytes(atPath: history.path)).count
    let cursor = try #require(try history.readPage(limit: 3)?.nextBefore)
    for forged in [cursor + 1, cursor - 1, size + 1, -1] {
      #expect(try history.readPage(before: forged, limit: 3) == nil, "cursor \(forged)")
    }
    #expect(try history.readPage(before: size, limit: 3)?.entries == events(7..<10))
    #expect(try history.readPage(before: 0, limit: 3)?.entries == [])
    #expect(try history.corruptCopies().isEmpty)
    #expect(try history.directory.problems().isEmpty)
  }

  @Test func aTornLastLineIsSkippedAndReportedWithoutACopy() throws {
    defer { scratch.remove() }
    for event in events(0..<5) { try history.append(event) }
    try history.append(raw: #"{"payload":{"what":"e5"#)
    let before = bytes(atPath: history.path)
    let page = try #require(try history.readPage(limit: 3))
    #expect(page.entries == events(2..<5))
    #expect(page.problems.count == 1)
    #expect(page.problems.first?.reason.contains("last line was cut short") == true)
    #expect(page.problems.first?.keptAs == nil)
    #expect(try history.corruptCopies().isEmpty)
    #expect(bytes(atPath: history.path) == before)
  }

  @Test func aBadLineAPageReachesIsReportedAndCopiedAsideOnce() throws {
    defer { scratch.remove() }
    for event in events(0..<5) { try history.append(event) }
    try history.append(raw: "garbage\n")
    for event in events(5..<10) { try history.append(event) }
    let original = try #require(bytes(atPath: history.path))

    // A page that stops before the bad line reports nothing.
    let newest = try #require(try history.readPage(limit: 5))
    #expect(newest.problems.isEmpty)
    #expect(try history.corruptCopies().isEmpty)

    let reaching = try #require(try history.readPage(before: newest.nextBefore, limit: 3))
    #expect(reaching.entries == events(2..<5))
    let problem = try #require(reaching.problems.first)
    #expect(problem.keptAs == "history.jsonl.corrupt-20261202T112233Z")
    #expect(
      problem.reason.hasPrefix(
        "the line at byte \(original.firstRange(of: Array("garbage".utf8))?.lowerBound ?? -1)"))
    #expect(bytes(atPath: history.directory.filePath("history.jsonl.corrupt-20261202T112233Z")) == original)
    #expect(bytes(atPath: history.path) == original)
    #expect(try history.directory.problems().count == 1)

    // Again, and after more appends: the same copy, no new problem recorded.
    try history.append(Event(what: "e10"))
    let again = try #require(try history.readPage(limit: 20))
    #expect(again.entries == events(0..<11))
    #expect(again.problems.first?.keptAs == "history.jsonl.corrupt-20261202T112233Z")
    #expect(try history.corruptCopies().count == 1)
    #expect(try history.directory.problems().count == 1)

    // A copy made by the whole-file read covers the page's lines too, and the other way round.
    #expect(try history.read().problems.first?.keptAs == "history.jsonl.corrupt-20261202T112233Z")
  }

  @Test func aNewBadLineTheCopyDoesNotHoldIsCopiedAgain() throws {
    defer { scratch.remove() }
    try history.append(Event(what: "one"))
    try history.append(raw: "garbage\n")
    _ = try history.readPage(limit: 20)
    try history.append(raw: "more garbage\n")
    try history.append(Event(what: "two"))
    let page = try #require(try history.readPage(limit: 20))
    #expect(page.entries == [Event(what: "one"), Event(what: "two")])
    #expect(page.problems.first?.keptAs == "history.jsonl.corrupt-20261202T112233Z-2")
    #expect(page.problems.first?.reason.hasPrefix("the lines at bytes") == true)
    #expect(try history.corruptCopies().count == 2)
  }

  @Test func entriesLongerThanABlockAreReadWhole() throws {
    defer { scratch.remove() }
    let long = (0..<4).map { Event(what: String(repeating: "\($0)", count: 150_000)) }
    for event in long { try history.append(event) }
    #expect(try history.readPage(limit: 3)?.entries == Array(long[1...]))
    #expect(try allPages(limit: 1).reversed().flatMap { $0 } == long)
  }

  @Test func aHugeLineIsReportedWithoutBeingHeld() throws {
    defer { scratch.remove() }
    try history.append(Event(what: "before"))
    try history.append(raw: String(repeating: "x", count: 3 << 20) + "\n")
    try history.append(Event(what: "after"))
    let page = try #require(try history.readPage(limit: 20))
    #expect(page.entries == [Event(what: "before"), Event(what: "after")])
    #expect(page.problems.first?.reason.contains("longer than any entry") == true)
  }

  @Test func aLongRunOfBadLinesIsCrossedABoundedPageAtATime() throws {
    defer { scratch.remove() }
    for event in events(0..<3) { try history.append(event) }
    try history.append(raw: String(repeating: String(repeating: "#", count: 99) + "\n", count: 50))
    for event in events(3..<5) { try history.append(event) }
    var seen: [Event] = []
    var pages = 0
    var before: Int?
    repeat {
      let page = try #require(try history.readPage(before: before, limit: 20, scanBudget: 1000))
      seen = page.entries + seen
      pages += 1
      before = page.nextBefore
    } while before != nil && pages < 100
    #expect(seen == events(0..<5))
    #expect(pages >= 5, "5000 bad bytes at most 1000 a page")
    #expect(try history.corruptCopies().count == 1)
  }

  @Test func blankLinesAreSkippedAndPagesAgreeWithTheWholeRead() throws {
    defer { scratch.remove() }
    for event in events(0..<6) { try history.append(event) }
    try history.append(raw: "\n  \n")
    for event in events(6..<12) { try history.append(event) }
    #expect(try allPages(limit: 5).reversed().flatMap { $0 } == history.read().value)
  }

  @Test(arguments: [1, 2, 7, 64, 4096])
  func theLineReaderSplitsLikeAForwardSplit(blockSize: Int) throws {
    defer { scratch.remove() }
    let text = "alpha\n\nbravo charlie\nd\n" + String(repeating: "e", count: 300) + "\nlast"
    try FileManager.default.createDirectory(atPath: history.directory.path, withIntermediateDirectories: true)
    try write(Array(text.utf8), toPath: history.path)
    let descriptor = open(history.path, O_RDONLY)
    defer { close(descriptor) }
    var reader = BackwardLineReader(
      descriptor: descriptor, path: history.path, end: text.utf8.count, blockSize: blockSize,
      maximumLineBytes: 100)
    var lines: [BackwardLineReader.Line] = []
    while let line = try reader.previousLine() { lines.append(line) }
    let expected = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines.count == expected.count)
    #expect(
      lines.reversed().map { $0.bytes.map { String(decoding: $0, as: UTF8.self) } ?? "<long>" }
        == expected.map { $0.utf8.count > 100 ? "<long>" : $0 })
    #expect(lines.first?.terminated == false)
    #expect(lines.dropFirst().allSatisfy { $0.terminated })
    #expect(lines.last?.start == 0)
  }
}
