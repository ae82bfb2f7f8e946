import Foundation
import Testing

@testable import PuckCore

/// The network bypass policy (docs/DESIGN.md M9) on the wake-guard machine, with a manual
/// clock: off by default, a minimum ring first, a limit per wake-up kept in the saved guard,
/// and never an end of a wake-up. The press filter ignores retained and repeated commands.
@Suite("Network bypass")
struct NetworkBypassTests {
  private let start = Instant(unixSeconds: 1_790_000_000)
  private let paired = TagUID.testPuck

  private func occurrence(requiresPuck: Bool = true) -> AlarmOccurrence {
    AlarmOccurrence(
      alarmID: 1, label: "", time: WallTime(hour: 6, minute: 30), scheduledAt: start,
      requiresPuck: requiresPuck, isOneShot: false)
  }

  private func settings(_ policy: NetworkBypassPolicy) -> WakeGuardSettings {
    var settings = WakeGuardSettings(retryDelay: .seconds(60), ringTimeout: .seconds(600), pairedTag: paired)
    settings.networkBypass = policy
    return settings
  }

  @Test("off by default: a network press changes nothing")
  func offByDefault() {
    var machine = WakeGuardMachine()
    let settings = WakeGuardSettings(retryDelay: .seconds(60), ringTimeout: .seconds(600), pairedTag: paired)
    _ = machine.handle(.alarmDue(occurrence()), at: start, settings: settings)
    let effects = machine.handle(.networkBypass, at: start.adding(seconds: 300), settings: settings)
    #expect(effects == [.networkBypassRefused(.disabled)])
    #expect(machine.isRinging)
  }

  @Test("on: refused until the ring was heard for the minimum, then once per wake-up, across retries")
  func minimumRingThenLimit() throws {
    var machine = WakeGuardMachine()
    let settings = settings(NetworkBypassPolicy(enabled: true, minimumRing: .seconds(30), limit: 1))
    #expect(
      machine.handle(.networkBypass, at: start, settings: settings) == [.networkBypassRefused(.notRinging)])
    _ = machine.handle(.alarmDue(occurrence()), at: start, settings: settings)
    #expect(
      machine.handle(.networkBypass, at: start.adding(seconds: 10), settings: settings)
        == [.networkBypassRefused(.tooSoon(remaining: .seconds(20)))])
    let taken = machine.handle(.networkBypass, at: start.adding(seconds: 30), settings: settings)
    #expect(taken.contains(.stopRing))
    #expect(machine.guards.first?.networkBypassCount == 1)
    #expect(machine.guards.first?.bypassCount == 1)
    // The retry rings; a press, even after the minimum, is over the limit.
    _ = machine.handle(.retryDue, at: start.adding(seconds: 90), settings: settings)
    #expect(machine.isRinging)
    #expect(
      machine.handle(.networkBypass, at: start.adding(seconds: 200), settings: settings)
        == [.networkBypassRefused(.limitReached(1))])
    #expect(machine.isRinging)
    // The dock's own button still works.
    #expect(machine.handle(.bypass, at: start.adding(seconds: 201), settings: settings).contains(.stopRing))
  }

  @Test("the count is saved with the guard, and a file from before it reads as none")
  func countSurvivesSaving() throws {
    var machine = WakeGuardMachine()
    let settings = settings(NetworkBypassPolicy(enabled: true, minimumRing: .zero, limit: 1))
    _ = machine.handle(.alarmDue(occurrence()), at: start, settings: settings)
    _ = machine.handle(.networkBypass, at: start, settings: settings)
    let saved = try JSONEncoder().encode(machine.guards)
    let loaded = try JSONDecoder().decode([WakeGuard].self, from: saved)
    #expect(loaded.first?.networkBypassCount == 1)
    var old = try #require(try JSONSerialization.jsonObject(with: saved) as? [[String: Any]])
    old[0].removeValue(forKey: "networkBypassCount")
    let older = try JSONDecoder().decode(
      [WakeGuard].self, from: try JSONSerialization.data(withJSONObject: old))
    #expect(older.first?.networkBypassCount == 0)
  }

  @Test("a network press silences and re-arms even an alarm that needs no puck: it never ends one")
  func neverAnEnd() {
    var machine = WakeGuardMachine()
    let settings = settings(NetworkBypassPolicy(enabled: true, minimumRing: .zero, limit: 3))
    _ = machine.handle(.alarmDue(occurrence(requiresPuck: false)), at: start, settings: settings)
    let effects = machine.handle(.networkBypass, at: start, settings: settings)
    #expect(effects.contains(.stopRing))
    #expect(machine.guards.count == 1, "still open")
    #expect(!effects.contains { if case .recordHistory = $0 { true } else { false } })
  }

  @Test("retained commands are never presses; one within 2 s of a press is the same press")
  func retainedAndRepeated() {
    var filter = NetworkPressFilter<TestInstant>()
    #expect(filter.admit(retained: true, now: .zero) == .retained)
    #expect(filter.admit(retained: false, now: .seconds(1)) == .press)
    #expect(filter.admit(retained: false, now: .milliseconds(2_500)) == .repeated)
    #expect(filter.admit(retained: true, now: .seconds(10)) == .retained)
    #expect(filter.admit(retained: false, now: .seconds(10)) == .press)
  }
}
