import Foundation
import PuckCore
import PuckDaemon
import Testing

/// The escape hatch with a cost (issue 13 item 6, docs/DESIGN.md W17): `override` closes the
/// wake-ups only after `override_delay` with the ring going on; it can be cancelled, a scan
/// meanwhile ends the wake-up as usual, and status shows it, then the override, until
/// acknowledged.
@Suite("override after a delay", .serialized)
struct OverrideDelayTests {
  private func ringingDock(delay: String = "2min") throws -> ManualDock {
    let dock = try ManualDock.ringing(config: "[enforcement]\noverride_delay = \(delay)\n")
    #expect(try dock.guards().first?.ringing == true)
    return dock
  }

  @Test("a stop during the countdown cancels the override; an override while the wake-up is quiet is refused")
  func countsOnlyWhileRinging() throws {
    let dock = try ringingDock()
    let override = try dock.open("override")
    #expect(try override.replies().first?.progress?.contains("WITHOUT a scan") == true)
    #expect(try dock.stopOnceHeard().ok == true)
    let cancelled = try #require(try override.replies().last)
    #expect(
      cancelled.failure?.message.contains("override cancelled: the ring was stopped") == true, "\(cancelled)")
    #expect(try dock.status().overrideAt == nil)

    // Quiet after the stop: refused until the retry rings again (10 s: half the ring heard).
    let quiet = try dock.request("override")
    #expect(quiet.failure?.kind == .refused)
    #expect(quiet.failure?.message.contains("only while the ring goes on") == true)
    try dock.advance(.seconds(60))
    let guards = try dock.guards()
    #expect(guards.count == 1 && guards.first?.ringing == true, "open past the delay, ringing again")
  }

  @Test(
    "override counts down with the ring going on, then closes every wake-up; status shows it until acknowledged"
  )
  func closesAfterTheDelay() throws {
    let dock = try ringingDock()
    let override = try dock.open("override")
    #expect(try override.replies().first?.progress?.contains("WITHOUT a scan") == true)
    var status = try dock.status()
    #expect(status.overrideAt == dock.now.adding(seconds: 120))
    #expect(status.guards.first?.ringing == true, "the ring goes on during the delay")

    try dock.advance(.seconds(119))
    #expect(try override.replies().isEmpty)
    #expect(try dock.guards().count == 1)
    try dock.advance(.seconds(1))
    let reply = try #require(try override.replies().last)
    #expect(reply.ok == true)
    #expect(reply.message?.contains("closed 1 wake-up WITHOUT a scan") == true)
    status = try dock.status()
    #expect(status.guards.isEmpty)
    #expect(status.overrideAt == nil)
    #expect(status.overrides?.count == 1, "shown until acknowledged")
    #expect(try dock.history().first?.outcome == .overridden)

    #expect(try dock.request("acknowledge").ok == true)
    #expect(try dock.status().overrides?.isEmpty != false)
  }

  @Test("override --cancel from another client stops it: the wake-up stays open and keeps ringing")
  func cancelled() throws {
    let dock = try ringingDock()
    let override = try dock.open("override")
    _ = try override.replies()
    #expect(try dock.request("override", "--cancel").message?.contains("cancelled") == true)
    #expect(try override.replies().last?.ok == false)
    try dock.advance(.seconds(300))
    #expect(try dock.guards().count == 1)
    #expect(try dock.status().overrideAt == nil)
    #expect(try dock.history().isEmpty)
  }

  @Test("the client going away (Ctrl-C) cancels it")
  func abandoned() throws {
    let dock = try ringingDock()
    let override = try dock.open("override")
    _ = try override.replies()
    override.hangUp()
    try dock.settle()
    #expect(try dock.status().overrideAt == nil)
    try dock.advance(.seconds(300))
    #expect(try dock.guards().count == 1)
  }

  @Test("a scan during the countdown ends the wake-up as usual; nothing is overridden")
  func scanMeanwhile() throws {
    let dock = try ringingDock()
    let override = try dock.open("override")
    _ = try override.replies()
    dock.bench.reader?.present(dock.puck)
    let reply = try #require(try override.replies().last)
    #expect(reply.ok == true)
    #expect(reply.message?.contains("nothing was overridden") == true)
    #expect(try dock.history().first?.outcome == .woke)
    #expect(try dock.status().overrides?.isEmpty != false)
  }

  @Test("a second override while one counts down is refused; override_delay = 0s closes at once")
  func secondAndImmediate() throws {
    let dock = try ringingDock()
    let first = try dock.open("override")
    _ = try first.replies()
    #expect(try dock.request("override").failure?.kind == .refused)

    let immediate = try ringingDock(delay: "0s")
    #expect(try immediate.request("override").message?.contains("closed 1 wake-up") == true)
    #expect(try immediate.guards().isEmpty)
  }
}
