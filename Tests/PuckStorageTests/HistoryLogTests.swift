import Foundation
import Glibc
import PuckCore
import PuckStorage
import Testing

@Suite struct HistoryLogTests {
  let scratch: ScratchDirectory
  let history: HistoryLog<Event>

  init() throws {
    scratch = try ScratchDirectory()
    history = HistoryLog(directory: try StateDirectory(path: scratch.path + "/state", clock: { testInstant }))
  }

  @Test func appendAndReadNewestLast() throws {
    defer { scratch.remove() }
    #expect(try history.read().value == [])
    for what in ["one", "two", "three"] { try history.append(Event(what: what)) }
    #expect(try history.read().value == [Event(what: "one"), Event(what: "two"), Event(what: "three")])
    #expect(try history.read(limit: 2).value == [Event(what: "two"), Event(what: "three")])
    #expect(try history.read(limit: 0).value == [])
    let text = String(decoding: bytes(atPath: history.path) ?? [], as: UTF8.self)
    #expect(text.split(separator: "\n").first == #"{"payload":{"what":"one"},"schemaVersion":1}"#)
    #expect(text.hasSuffix("\n"))
    #expect(mode(ofPath: history.path) == 0o600)
  }

  @Test func containsFindsAnAppendedEntry() throws {
    defer { scratch.remove() }
    let never: (Event) -> Bool = { _ in false }
    #expect(try !history.contains(Event(what: "one"), stoppingAt: never), "no file yet")
    try history.append(Event(what: "one"))
    #expect(try history.contains(Event(what: "one"), stoppingAt: never))
    #expect(try !history.contains(Event(what: "two"), stoppingAt: never))
  }

  @Test("contains looks back past any number of newer entries, and stops where entries are older")
  func containsLooksBackUntilOlder() throws {
    defer { scratch.remove() }
    try history.append(contentsOf: (0..<5).map { Event(what: "old \($0)") })
    try history.append(Event(what: "closed"))
    // Years of missed alarms recorded after it: far more than one page.
    try history.append(contentsOf: (0..<12_000).map { Event(what: "newer \($0)") })
    #expect(try history.contains(Event(what: "closed")) { $0.what.hasPrefix("old") })
    // An entry older than where the search stops is not looked for.
    #expect(try !history.contains(Event(what: "old 0")) { $0.what.hasPrefix("newer 11") })
  }

  @Test func batchAppendAndReadingTheTail() throws {
    defer { scratch.remove() }
    #expect(try history.last(3) == [])
    try history.append(contentsOf: [])
    #expect(try history.read().value == [])
    // Enough lines that the tail is read in several chunks from the end.
    let events = (0..<6000).map { Event(what: "event \($0) " + String(repeating: "x", count: 20)) }
    try history.append(contentsOf: Array(events[..<3000]))
    try history.append(contentsOf: Array(events[3000...]))
    #expect(try history.read().value == events)
    #expect(try history.last(2) == Array(events.suffix(2)))
    #expect(try history.last(2500) == Array(events.suffix(2500)))
    #expect(try history.last(10_000) == events)
    // A torn last line is skipped (and counts for nothing); the next append starts on its own line.
    try history.append(raw: #"{"payload":{"what":"torn"#)
    #expect(try history.last(1) == [events.last])
    #expect(try history.last(2) == Array(events.suffix(2)))
    try history.append(contentsOf: [Event(what: "after")])
    #expect(try history.last(1) == [Event(what: "after")])
  }

  @Test func tornLastLineIsToleratedAndReported() throws {
    defer { scratch.remove() }
    try history.append(Event(what: "one"))
    try history.append(Event(what: "two"))
    try history.append(raw: #"{"payload":{"what":"thr"#)
    let before = bytes(atPath: history.path)
    let read = try history.read()
    #expect(read.value == [Event(what: "one"), Event(what: "two")])
    #expect(read.problems.count == 1)
    #expect(read.problems.first?.reason.contains("last line (3) was cut short") == true)
    #expect(read.problems.first?.keptAs == nil)
    #expect(try history.corruptCopies().isEmpty)
    #expect(bytes(atPath: history.path) == before)

    // The next append starts on a fresh line, so it is readable.
    try history.append(Event(what: "four"))
    #expect(try history.read().value == [Event(what: "one"), Event(what: "two"), Event(what: "four")])
  }

  @Test func corruptLineIsSkippedAndTheFileCopiedAsideOnce() throws {
    defer { scratch.remove() }
    try history.append(Event(what: "one"))
    try history.append(raw: "garbage\n")
    try history.append(Event(what: "three"))
    let before = try #require(bytes(atPath: history.path))

    let first = try history.read()
    #expect(first.value == [Event(what: "one"), Event(what: "three")])
    #expect(first.problems.first?.keptAs == "history.jsonl.corrupt-20261202T112233Z")
    #expect(first.problems.first?.reason.hasPrefix("line 2 could not be read") == true)
    #expect(bytes(atPath: history.directory.filePath("history.jsonl.corrupt-20261202T112233Z")) == before)
    #expect(bytes(atPath: history.path) == before)
    #expect(try history.directory.problems().count == 1)

    // Reading again, and after more appends, refers to the same copy.
    try history.append(Event(what: "four"))
    let second = try history.read()
    #expect(second.value?.count == 3)
    #expect(second.problems.first?.keptAs == "history.jsonl.corrupt-20261202T112233Z")
    #expect(try history.corruptCopies() == ["history.jsonl.corrupt-20261202T112233Z"])
    #expect(try history.directory.problems().count == 1)

    // A new bad line the copy does not hold is copied again, without touching the first copy.
    try history.append(raw: "more garbage\n")
    let third = try history.read()
    #expect(third.problems.first?.keptAs == "history.jsonl.corrupt-20261202T112233Z-2")
    #expect(third.problems.first?.reason.hasPrefix("lines 2, 5 could not be read") == true)
    #expect(bytes(atPath: history.directory.filePath("history.jsonl.corrupt-20261202T112233Z")) == before)
    #expect(try history.corruptCopies().count == 2)
  }

  @Test func newerEntryVersionIsSkippedNotFatal() throws {
    defer { scratch.remove() }
    try history.append(Event(what: "one"))
    try history.append(raw: #"{"schemaVersion":9,"payload":{"what":"future"}}"# + "\n")
    let read = try history.read()
    #expect(read.value == [Event(what: "one")])
    #expect(read.problems.first?.reason.contains("format version 9") == true)
  }
}
