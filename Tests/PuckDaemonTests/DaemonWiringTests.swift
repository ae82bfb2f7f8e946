import PuckDaemon
import Testing

/// `Daemon.wire()` sets every back edge a component declares (docs/DESIGN.md §2): a `Wired` slot
/// left unset would trap the first time it is used, possibly only at 6 a.m.
@Suite struct DaemonWiringTests {
  @Test("after start every back edge of every component is wired")
  func everyBackEdgeIsWired() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z", config: "")
    try dock.start()
    let edges = try #require(dock.daemon).backEdges
    #expect(edges.count >= 14, "the reflection finds the slots: \(edges.keys.sorted())")
    #expect(edges.filter { !$0.value }.keys.sorted() == [], "never wired")
  }
}
