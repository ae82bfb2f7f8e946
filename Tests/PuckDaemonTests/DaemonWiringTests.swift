import Foundation
import PuckDaemon
import Testing

/// `Daemon.wire()` sets every back edge a component declares (docs/DESIGN.md §1): a `Wired` slot
/// left unset would trap the first time it is used, possibly only at 6 a.m.
@Suite struct DaemonWiringTests {
  /// The slots the daemon's sources declare: `@Wired("Component.slot")`.
  private func declaredSlots() throws -> Set<String> {
    var names: Set<String> = []
    for (_, text) in try daemonSources() {
      for match in text.matches(of: #/@Wired\("([A-Za-z]+\.[A-Za-z]+)"\)/#) {
        names.insert(String(match.output.1))
      }
    }
    return names
  }

  @Test("after start every back edge the sources declare is found, and wired")
  func everyBackEdgeIsWired() throws {
    let declared = try declaredSlots()
    try #require(declared.count >= 10, "the sources' slots: \(declared.sorted())")
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z", config: "")
    try dock.start()
    let edges = try #require(dock.daemon).backEdges
    #expect(Set(edges.keys) == declared, "the reflection finds each declared slot")
    #expect(edges.filter { !$0.value }.keys.sorted() == [], "never wired")
  }
}
