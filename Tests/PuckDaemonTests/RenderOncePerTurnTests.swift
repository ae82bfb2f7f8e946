import Foundation
import PuckCore
import PuckDaemon
import Testing

/// Status is rendered (the LED, `STATUS=`, Home Assistant's state) once per loop turn, however
/// many components changed in it, and `guards.json` is written once for a ring: counted on the
/// real daemon, in-process on a manual clock.
@Suite("puckd renders once per turn", .serialized)
struct RenderOncePerTurnTests {
  private struct Counts: Equatable {
    var renders: Int
    var saves: Int
  }

  private static func counts(_ dock: ManualDock) throws -> Counts {
    let daemon = try #require(dock.daemon)
    return Counts(renders: daemon.statusRenders, saves: daemon.guardsSaves)
  }

  /// What `work` cost in renders and saves.
  private static func cost(_ dock: ManualDock, _ work: () throws -> Void) throws -> Counts {
    let before = try counts(dock)
    try work()
    let after = try counts(dock)
    return Counts(renders: after.renders - before.renders, saves: after.saves - before.saves)
  }

  @Test("a ring renders once and saves guards.json once")
  func ring() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 1)
    try dock.advance(.seconds(59))
    // The ring's own turn: the audio output's report that it plays is an event of its own,
    // from its thread, and renders once more when it comes.
    dock.bench.audio?.setReports(false)
    let ring = try Self.cost(dock) { try dock.advance(.seconds(1)) }
    #expect(try dock.guards().first?.ringing == true)
    #expect(ring == Counts(renders: 1, saves: 1))
  }

  @Test("a scan that ends the wake-up renders once")
  func scan() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 1)
    try dock.advance(.seconds(60))
    #expect(try dock.guards().first?.ringing == true)
    dock.bench.audio?.setReports(false)
    let scan = try Self.cost(dock) {
      dock.bench.reader?.present(dock.puck)
      try dock.settle()
    }
    #expect(try dock.guards().isEmpty)
    #expect(scan.renders == 1)
  }

  @Test("a request that changes the schedule renders once; one that only reads renders nothing")
  func request() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    let add = try Self.cost(dock) {
      let draft = AlarmDraft(time: WallTime(hour: 7, minute: 0), recurrence: .next)
      let reply = try dock.request(ControlRequest(adding: draft))
      #expect(reply.ok == true)
    }
    #expect(add.renders == 1)
    let read = try Self.cost(dock) { _ = try dock.status() }
    #expect(read == Counts(renders: 0, saves: 0))
  }
}
