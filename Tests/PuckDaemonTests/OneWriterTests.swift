import Foundation
import Testing

/// `guards.json` has one writer (docs/DESIGN.md D12): every change to its record goes through
/// `Enforcement`, with the event it belongs to, so no flow can save half of a change.
@Suite("guards.json has one writer")
struct OneWriterTests {
  @Test("only Enforcement changes or saves the record; every other component hands it a RecordChange")
  func onlyEnforcementWrites() throws {
    var writers: Set<String> = []
    for (name, text) in try daemonSources() {
      for call in ["guardsFile.apply(", "guardsFile.commit(", "guardsFile.save("] where text.contains(call) {
        writers.insert(name)
      }
    }
    #expect(writers == ["Enforcement/Enforcement.swift"])
  }
}
