import Testing

@testable import PuckCore

/// `puckctl stop` through the control socket (docs/DESIGN.md W18), on the wake-guard machine
/// with a manual clock: refused until the ring has been heard for `stop_after`, then quiet for
/// at most half the ring heard; the dock button at once; and whatever loop of stops from the
/// socket and the network runs, the dock rings at least half of an open wake-up's time.
@Suite("Socket stop")
struct SocketStopTests {
  private let start = Instant(unixSeconds: 1_790_000_000)
  private let paired = TagUID.testPuck

  private func occurrence(_ id: AlarmID = 1, requiresPuck: Bool = true) -> AlarmOccurrence {
    AlarmOccurrence(
      alarmID: id, label: "", time: WallTime(hour: 6, minute: 30), scheduledAt: start,
      requiresPuck: requiresPuck, isOneShot: false)
  }

  private func settings(retryDelay: Duration = .seconds(60), stopAfter: Duration = .seconds(20))
    -> WakeGuardSettings
  {
    var settings = WakeGuardSettings(retryDelay: retryDelay, ringTimeout: .seconds(600), pairedTag: paired)
    settings.stopAfter = stopAfter
    return settings
  }

  @Test("a stop from the socket is refused until the ring was heard for stop_after, with what is left")
  func refusedUntilHeard() {
    var machine = WakeGuardMachine()
    let settings = settings()
    _ = machine.handle(.alarmDue(occurrence()), at: start, settings: settings)
    #expect(
      machine.handle(.socketStop, at: start.adding(seconds: 5), settings: settings)
        == [.socketStopRefused(remaining: .seconds(15))])
    #expect(machine.isRinging)
    #expect(machine.guards.first?.bypassCount == 0, "a refused stop is no bypass")
    let taken = machine.handle(.socketStop, at: start.adding(seconds: 20), settings: settings)
    #expect(taken.contains(.stopRing))
    #expect(machine.guards.first?.bypassCount == 1)
  }

  @Test("the quiet it buys is at most half the ring heard, never more than the retry delay")
  func quietIsHalfTheRingHeard() {
    var machine = WakeGuardMachine()
    let settings = settings(retryDelay: .seconds(60))
    _ = machine.handle(.alarmDue(occurrence()), at: start, settings: settings)
    _ = machine.handle(.socketStop, at: start.adding(seconds: 30), settings: settings)
    #expect(machine.nextRetry == start.adding(seconds: 45))
    _ = machine.handle(.retryDue, at: start.adding(seconds: 45), settings: settings)
    _ = machine.handle(.socketStop, at: start.adding(seconds: 45 + 600), settings: settings)
    #expect(machine.nextRetry == start.adding(seconds: 45 + 600 + 60), "a long ring: the retry delay")
  }

  @Test("the dock button stops at once and buys the whole retry delay")
  func theButtonAtOnce() {
    var machine = WakeGuardMachine()
    let settings = settings()
    _ = machine.handle(.alarmDue(occurrence()), at: start, settings: settings)
    #expect(machine.handle(.bypass, at: start.adding(seconds: 1), settings: settings).contains(.stopRing))
    #expect(machine.nextRetry == start.adding(seconds: 61))
  }

  @Test("an alarm that needs no puck is an ordinary alarm clock's: the socket's stop ends it at once")
  func noPuckAlarmStopsAtOnce() {
    var machine = WakeGuardMachine()
    let settings = settings()
    _ = machine.handle(.alarmDue(occurrence(requiresPuck: false)), at: start, settings: settings)
    let effects = machine.handle(.socketStop, at: start.adding(seconds: 1), settings: settings)
    #expect(effects.contains(.stopRing))
    #expect(machine.guards.isEmpty)
  }

  @Test("beside a puck's alarm, the no-puck alarm waits for stop_after too")
  func mixedRingsWaitForStopAfter() {
    var machine = WakeGuardMachine()
    let settings = settings()
    _ = machine.handle(.alarmDue(occurrence(1)), at: start, settings: settings)
    _ = machine.handle(.alarmDue(occurrence(2, requiresPuck: false)), at: start, settings: settings)
    #expect(
      machine.handle(.socketStop, at: start.adding(seconds: 2), settings: settings)
        == [.socketStopRefused(remaining: .seconds(18))])
    #expect(machine.guards.count == 2)
  }

  /// A loop of `puckctl stop` every `period` seconds (and Home Assistant's button, when on) for
  /// an hour of manual time, with a second-by-second tally of ringing and quiet.
  private func ringingShare(
    retryDelay: Duration, stopAfter: Duration, shrink: Duration = .zero, network: NetworkBypassPolicy = .off
  ) -> Double {
    var machine = WakeGuardMachine()
    var settings = settings(retryDelay: retryDelay, stopAfter: stopAfter)
    settings.retryShrink = shrink
    settings.retryFloor = .seconds(5)
    settings.networkBypass = network
    _ = machine.handle(.alarmDue(occurrence()), at: start, settings: settings)
    var ringing = 0
    let seconds: Int64 = 3600
    for second in 0..<seconds {
      let now = start.adding(seconds: second)
      _ = machine.handle(.retryDue, at: now, settings: settings)
      _ = machine.handle(.networkBypass, at: now, settings: settings)
      _ = machine.handle(.socketStop, at: now, settings: settings)
      // A retry the stop put at this very instant rings again at once.
      _ = machine.handle(.retryDue, at: now, settings: settings)
      if machine.isRinging { ringing += 1 }
    }
    return Double(ringing) / Double(seconds)
  }

  @Test(
    "no loop of stops from the socket and the network keeps the dock quiet for more than half the time",
    arguments: [
      (Duration.seconds(60), Duration.seconds(20)), (.seconds(5), .seconds(20)),
      (.seconds(1800), .seconds(20)),
      (.seconds(1800), .seconds(5)), (.seconds(60), .seconds(1)), (.seconds(300), .seconds(600)),
    ])
  func noLoopKeepsItQuiet(retryDelay: Duration, stopAfter: Duration) {
    for network in [
      NetworkBypassPolicy.off, NetworkBypassPolicy(enabled: true, minimumRing: .zero, limit: 10),
    ] {
      for shrink in [Duration.zero, .seconds(30)] {
        let share = ringingShare(
          retryDelay: retryDelay, stopAfter: stopAfter, shrink: shrink, network: network)
        #expect(
          share >= 0.5,
          "retry_delay \(retryDelay), stop_after \(stopAfter), shrink \(shrink), network \(network.enabled): \(share)"
        )
      }
    }
  }
}
