import Foundation
import Testing

@testable import PuckCore

/// Drives the machine with a manual clock, the way the daemon would.
private struct Harness {
  var machine = WakeGuardMachine()
  var now = Instant(unixSeconds: 1_790_000_000)
  var settings = WakeGuardSettings(
    retryDelay: .seconds(60), ringTimeout: .seconds(600), pairedTag: Harness.paired)

  static let paired = TagUID(fixed: [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44])
  static let stranger = TagUID(fixed: [0x04, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11])

  mutating func advance(_ seconds: Int64) { now = now.adding(seconds: seconds) }

  @discardableResult
  mutating func send(_ event: WakeEvent) -> [WakeEffect] {
    machine.handle(event, at: now, settings: settings)
  }

  func occurrence(id: AlarmID = 1, oneShot: Bool = false, requiresPuck: Bool = true) -> AlarmOccurrence {
    AlarmOccurrence(
      alarmID: id, label: "", time: WallTime(hour: 6, minute: 30), scheduledAt: now,
      requiresPuck: requiresPuck, isOneShot: oneShot)
  }
}

private func histories(_ effects: [WakeEffect]) -> [HistoryEntry] {
  effects.compactMap { if case .recordHistory(let entry) = $0 { entry } else { nil } }
}

@Suite("Wake guard")
struct WakeGuardMachineTests {
  @Test("an alarm opens and persists a guard before the ring starts")
  func alarmOpensGuardFirst() {
    var h = Harness()
    let occurrence = h.occurrence()
    let effects = h.send(.alarmDue(occurrence))
    #expect(
      effects == [
        .persistGuards, .startRing(RingIdentity(occurrence: occurrence, retry: 0)),
        .armRingTimeout(.seconds(600)),
      ])
    #expect(h.machine.guards.count == 1)
    #expect(h.machine.isRinging)
  }

  @Test("a bypass silences, counts, and arms the retry after the delay; the retry rings again")
  func bypassThenRetry() {
    var h = Harness()
    let occurrence = h.occurrence()
    h.send(.alarmDue(occurrence))
    h.advance(20)
    let stop = h.send(.bypass)
    let guardID = h.machine.guards[0].id
    #expect(
      stop == [
        .stopRing, .cancelRingTimeout, .persistGuards,
        .armRetry(guardID: guardID, at: h.now.adding(seconds: 60)),
      ])
    #expect(!h.machine.isRinging)
    #expect(h.machine.guards[0].bypassCount == 1)

    h.advance(59)
    #expect(h.send(.retryDue) == [], "a retry event before the deadline changes nothing")
    h.advance(1)
    let retry = h.send(.retryDue)
    #expect(
      retry == [
        .persistGuards, .cancelRetry(guardID: guardID),
        .startRing(RingIdentity(occurrence: occurrence, retry: 1)), .armRingTimeout(.seconds(600)),
      ])
    #expect(h.machine.currentRing?.description == "06:30 alarm, retry 1")
  }

  @Test("adaptive bypass: each bypass after the first shortens the retry, down to the floor (W15)")
  func adaptiveRetryShrinksToTheFloor() {
    var h = Harness()
    h.settings.retryDelay = .seconds(300)
    h.settings.retryShrink = .seconds(120)
    h.settings.retryFloor = .seconds(60)
    h.send(.alarmDue(h.occurrence()))
    var delays: [Int64] = []
    for _ in 0..<5 {
      let bypassedAt = h.now
      let effects = h.send(.bypass)
      guard case .armRetry(_, let at)? = effects.last else {
        Issue.record("no retry armed: \(effects)")
        return
      }
      delays.append(at.seconds(since: bypassedAt))
      h.now = at
      #expect(!h.send(.retryDue).isEmpty)
      #expect(h.machine.currentRing?.retry == delays.count)
    }
    #expect(delays == [300, 180, 60, 60, 60])

    // Off by default: every retry waits retry_delay.
    let plain = WakeGuardSettings(retryDelay: .seconds(300), ringTimeout: .seconds(600), pairedTag: nil)
    #expect((1...4).map { plain.retryDelay(afterBypass: $0) } == Array(repeating: .seconds(300), count: 4))
    // A floor above the delay never lengthens a retry.
    var high = plain
    high.retryShrink = .seconds(10)
    high.retryFloor = .seconds(900)
    #expect(high.retryDelay(afterBypass: 3) == .seconds(300))
  }

  @Test("a ring nobody touches is silenced at the ring timeout and counted as a bypass")
  func ringTimeoutIsBypass() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence()))
    h.advance(600)
    let effects = h.send(.ringTimeout)
    #expect(effects.first == .stopRing)
    #expect(h.machine.guards[0].bypassCount == 1)
    #expect(h.machine.guards[0].retryAt == h.now.adding(seconds: 60))
  }

  @Test("the paired tag while ringing resolves: silence, no retry, history with the bypass count")
  func scanWhileRinging() {
    var h = Harness()
    let occurrence = h.occurrence()
    h.send(.alarmDue(occurrence))
    h.send(.bypass)
    h.advance(60)
    h.send(.retryDue)
    h.advance(5)
    let effects = h.send(.tagScanned(Harness.paired, fresh: true))
    #expect(effects.prefix(3) == [.stopRing, .cancelRingTimeout, .persistGuards])
    let entry = histories(effects)
    #expect(entry.count == 1)
    #expect(entry.first?.outcome == .woke)
    #expect(entry.first?.bypassCount == 1)
    #expect(entry.first?.rings == 2)
    #expect(h.machine.guards.isEmpty)
    #expect(!effects.contains(.retireAlarm(1)), "a weekly alarm is not retired")
  }

  @Test("the paired tag in the quiet time resolves and cancels the retry")
  func scanWhileQuiet() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence()))
    h.send(.bypass)
    let guardID = h.machine.guards[0].id
    h.advance(30)
    let effects = h.send(.tagScanned(Harness.paired, fresh: true))
    #expect(!effects.contains(.stopRing), "nothing was ringing")
    #expect(effects.contains(.cancelRetry(guardID: guardID)))
    #expect(histories(effects).map(\.outcome) == [.woke])
    #expect(h.machine.guards.isEmpty)
    h.advance(60)
    #expect(h.send(.retryDue) == [])
  }

  @Test("a wrong tag changes nothing")
  func wrongTag() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence()))
    let before = h.machine
    #expect(h.send(.tagScanned(Harness.stranger, fresh: true)) == [.wrongTag(Harness.stranger)])
    #expect(h.machine == before)
  }

  @Test("a tag that was lying on the reader does not resolve until it is presented again")
  func notFresh() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence()))
    let before = h.machine
    #expect(h.send(.tagScanned(Harness.paired, fresh: false)) == [.tagNotFresh(Harness.paired)])
    #expect(h.machine == before)
    #expect(h.machine.isRinging)
    let effects = h.send(.tagScanned(Harness.paired, fresh: true))
    #expect(histories(effects).map(\.outcome) == [.woke])
  }

  @Test("one scan resolves every open guard")
  func twoGuardsOneScan() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence(id: 1)))
    h.send(.bypass)
    h.advance(10)
    let second = h.send(.alarmDue(h.occurrence(id: 2)))
    #expect(second.contains(.startRing(RingIdentity(occurrence: h.occurrence(id: 2), retry: 0))))
    #expect(h.machine.guards.count == 2)
    let effects = h.send(.tagScanned(Harness.paired, fresh: true))
    #expect(Set(histories(effects).map(\.occurrence.alarmID)) == [1, 2])
    #expect(h.machine.guards.isEmpty)
  }

  @Test("a second alarm while one rings does not restart the sound")
  func secondAlarmWhileRinging() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence(id: 1)))
    let effects = h.send(.alarmDue(h.occurrence(id: 2)))
    #expect(effects == [.persistGuards, .armRingTimeout(.seconds(600))])
  }

  @Test("a one-shot alarm is retired only when its wake-up is resolved")
  func oneShotRetiredOnResolution() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence(oneShot: true)))
    #expect(!h.send(.bypass).contains(.retireAlarm(1)))
    h.advance(60)
    #expect(!h.send(.retryDue).contains(.retireAlarm(1)))
    #expect(!h.send(.ringTimeout).contains(.retireAlarm(1)))
    #expect(h.send(.tagScanned(Harness.paired, fresh: true)).contains(.retireAlarm(1)))
  }

  @Test("history keeps which puck (masked) and which reader ended the wake-up; an override names neither")
  func historyNamesThePuckAndTheReader() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence(id: 1)))
    h.send(.alarmDue(h.occurrence(id: 2)))
    let entries = histories(h.send(.tagScanned(Harness.paired, fresh: true, reader: "kitchen")))
    #expect(entries.map(\.puck) == ["primary (…:33:44)", "primary (…:33:44)"])
    #expect(entries.map(\.reader) == ["kitchen", "kitchen"])
    h.send(.alarmDue(h.occurrence(id: 3)))
    let overridden = histories(h.send(.override))
    #expect(overridden.first?.puck == nil)
    #expect(overridden.first?.reader == nil)
  }

  @Test(
    "the wake-up check: an answer is recorded; no answer is recorded and opens the wake-up again, ringing")
  func awakeCheck() {
    var h = Harness()
    let occurrence = h.occurrence(id: 1, oneShot: true)
    h.send(.alarmDue(occurrence))
    h.send(.tagScanned(Harness.paired, fresh: true))
    h.advance(300)
    let answered = h.send(.awakeConfirmed(occurrence))
    #expect(histories(answered).map(\.outcome) == [.awake])
    #expect(h.machine.guards.isEmpty)

    let unanswered = h.send(.awakeUnanswered(occurrence))
    #expect(histories(unanswered).map(\.outcome) == [.reopened])
    #expect(h.machine.guards.count == 1, "the wake-up is open again")
    #expect(unanswered.contains(.startRing(RingIdentity(occurrence: occurrence, retry: 0))))
    let ended = h.send(.tagScanned(Harness.paired, fresh: true))
    #expect(histories(ended).map(\.outcome) == [.woke])
  }

  @Test("several pucks: any of them ends the wake-up, and history names the one scanned")
  func anyPairedPuckEndsIt() {
    var h = Harness()
    h.settings.pucks = [Harness.paired: "primary", Harness.stranger: "backup in the car"]
    h.send(.alarmDue(h.occurrence()))
    let entries = histories(h.send(.tagScanned(Harness.stranger, fresh: true, reader: "dock")))
    #expect(entries.map(\.outcome) == [.woke])
    #expect(entries.first?.puck == "backup in the car (…:11:11)")
    h.send(.alarmDue(h.occurrence(id: 2)))
    h.settings.pucks = [Harness.paired: "primary"]
    #expect(
      h.send(.tagScanned(Harness.stranger, fresh: true)) == [.wrongTag(Harness.stranger)], "once unpaired")
  }

  @Test("override closes every guard without a scan and records it as an override")
  func override() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence(id: 1, oneShot: true)))
    h.send(.bypass)
    h.send(.alarmDue(h.occurrence(id: 2)))
    let effects = h.send(.override)
    #expect(effects.first == .stopRing)
    #expect(histories(effects).map(\.outcome) == [.overridden, .overridden])
    #expect(effects.contains(.retireAlarm(1)))
    #expect(h.machine.guards.isEmpty)
    #expect(h.send(.override) == [], "nothing left to override")
  }

  @Test("an alarm that does not require the puck ends with a stop")
  func noPuckAlarmStops() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence(requiresPuck: false)))
    let effects = h.send(.bypass)
    #expect(histories(effects).map(\.outcome) == [.stopped])
    #expect(h.machine.guards.isEmpty)
  }

  @Test("an untouched no-puck alarm still comes back after its ring timeout")
  func noPuckAlarmTimeoutRetries() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence(requiresPuck: false)))
    h.send(.ringTimeout)
    #expect(h.machine.guards.count == 1)
    #expect(h.machine.guards[0].retryAt != nil)
  }

  @Test("with no tag paired, a stop ends the wake-up instead of locking the owner out")
  func unpairedDockStops() {
    var h = Harness()
    h.settings.pucks = [:]
    h.send(.alarmDue(h.occurrence()))
    #expect(histories(h.send(.bypass)).map(\.outcome) == [.stopped])
  }

  @Test("the same occurrence twice opens one guard and rings once")
  func duplicateOccurrence() {
    var h = Harness()
    let occurrence = h.occurrence()
    h.send(.alarmDue(occurrence))
    #expect(h.send(.alarmDue(occurrence)) == [])
    h.send(.bypass)
    #expect(h.send(.alarmDue(occurrence)) == [], "not even while quiet")
    #expect(h.machine.guards.count == 1)
  }

  @Test("the next occurrence of an alarm whose guard is still open rings that guard now")
  func nextOccurrenceWhileOpen() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence()))
    h.send(.bypass)
    h.advance(30)
    let effects = h.send(.alarmDue(h.occurrence()))
    #expect(effects.contains { if case .startRing = $0 { true } else { false } })
    #expect(h.machine.guards.count == 1)
  }

  @Test("a restart while ringing rings again at once")
  func resumeWhileRinging() {
    var h = Harness()
    let occurrence = h.occurrence()
    h.send(.alarmDue(occurrence))
    h.advance(42)
    var restarted = Harness()
    restarted.now = h.now
    restarted.machine = WakeGuardMachine(guards: h.machine.guards)
    let effects = restarted.send(.daemonStarted)
    #expect(
      effects == [
        .persistGuards, .startRing(RingIdentity(occurrence: occurrence, retry: 0)),
        .armRingTimeout(.seconds(600)),
      ])
  }

  @Test("a restart while deferred, before the retry time, re-arms the retry without ringing")
  func resumeDeferredNotDue() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence()))
    h.send(.bypass)
    let retryAt = h.machine.guards[0].retryAt!
    h.advance(30)
    var restarted = WakeGuardMachine(guards: h.machine.guards)
    let effects = restarted.handle(.daemonStarted, at: h.now, settings: h.settings)
    #expect(effects == [.armRetry(guardID: h.machine.guards[0].id, at: retryAt)])
    #expect(!restarted.isRinging)
  }

  @Test("a restart after the retry time has passed rings at once, as the next retry")
  func resumeDeferredDue() {
    var h = Harness()
    let occurrence = h.occurrence()
    h.send(.alarmDue(occurrence))
    h.send(.bypass)
    h.advance(3600)
    var restarted = WakeGuardMachine(guards: h.machine.guards)
    let effects = restarted.handle(.daemonStarted, at: h.now, settings: h.settings)
    #expect(effects.contains(.startRing(RingIdentity(occurrence: occurrence, retry: 1))))
    #expect(restarted.isRinging)
  }

  @Test("a restart with no open guard does nothing")
  func resumeEmpty() {
    var h = Harness()
    #expect(h.send(.daemonStarted) == [])
  }

  @Test("a missed alarm is recorded, not rung, and a missed one-shot is retired")
  func missed() {
    var h = Harness()
    let effects = h.send(.alarmMissed(h.occurrence(oneShot: true)))
    #expect(histories(effects).map(\.outcome) == [.missed])
    #expect(effects.contains(.retireAlarm(1)))
    #expect(h.machine.guards.isEmpty)
  }

  @Test("stops and scans with no guard open do nothing")
  func idle() {
    var h = Harness()
    #expect(h.send(.bypass) == [])
    #expect(h.send(.ringTimeout) == [])
    #expect(h.send(.retryDue) == [])
    #expect(h.send(.tagScanned(Harness.paired, fresh: true)) == [])
  }

  @Test("a retry can be moved after a clock step; a ringing guard's cannot")
  func moveRetry() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence(id: 1)))
    h.send(.bypass)
    h.send(.alarmDue(h.occurrence(id: 2)))
    let quiet = h.machine.guards[0].id
    // The clock jumps back an hour 10 s into the quiet time: the retry is 50 s away in real time.
    h.advance(10 - 3600)
    let movedQuiet = h.machine.moveRetry(ofGuard: quiet, to: h.now.adding(seconds: 50))
    let ringingID = h.machine.guards[1].id
    let movedRinging = h.machine.moveRetry(ofGuard: ringingID, to: h.now)
    let movedUnknown = h.machine.moveRetry(ofGuard: "nope", to: h.now)
    #expect(movedQuiet)
    #expect(!movedRinging, "guard 2 is ringing")
    #expect(!movedUnknown)
    h.advance(49)
    #expect(h.send(.retryDue) == [], "not before 60 s of real time")
    h.advance(1)
    #expect(h.send(.retryDue).contains(.cancelRetry(guardID: quiet)))
  }

  @Test("guards survive an encode/decode round trip unchanged")
  func codable() throws {
    var h = Harness()
    h.send(.alarmDue(h.occurrence(id: 1)))
    h.send(.bypass)
    h.send(.alarmDue(h.occurrence(id: 2, oneShot: true)))
    let data = try JSONEncoder().encode(h.machine.guards)
    let decoded = try JSONDecoder().decode([WakeGuard].self, from: data)
    #expect(decoded == h.machine.guards)
  }

  // MARK: - The history journal (issue 8 item 8)

  @Test("closing a guard journals its entry in the same persist, before the history append")
  func closingJournalsTheEntryFirst() {
    for closing in [WakeEvent.tagScanned(Harness.paired, fresh: true), .override] {
      var h = Harness()
      h.send(.alarmDue(h.occurrence()))
      h.advance(30)
      let effects = h.send(closing)
      let entries = histories(effects)
      #expect(entries.count == 1)
      let persist = effects.firstIndex(of: .persistGuards)
      let record = effects.firstIndex { if case .recordHistory = $0 { true } else { false } }
      #expect(persist != nil && record != nil && persist! < record!, "\(closing): journal, then append")
      #expect(h.machine.guards.isEmpty)
      #expect(h.machine.pendingHistory == entries, "what persistGuards writes holds the entry")
      let recorded = h.machine.historyRecorded(entries[0])
      #expect(recorded)
      #expect(h.machine.pendingHistory.isEmpty)
      let again = h.machine.historyRecorded(entries[0])
      #expect(!again, "an entry leaves the journal once")
    }
  }

  @Test("a stopped no-puck alarm is journaled too, and entries wait in order until recorded")
  func journalKeepsOrder() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence(id: 1, requiresPuck: false)))
    let first = histories(h.send(.bypass))
    #expect(first.map(\.outcome) == [.stopped])
    h.advance(3600)
    h.send(.alarmDue(h.occurrence(id: 2)))
    let second = histories(h.send(.override))
    #expect(h.machine.pendingHistory == first + second, "an unrecorded entry is not dropped by the next")
    let recorded = h.machine.historyRecorded(second[0])
    #expect(recorded)
    #expect(h.machine.pendingHistory == first)
  }

  @Test("a missed alarm is not journaled (it has no guard to lose)")
  func missedIsNotJournaled() {
    var h = Harness()
    let effects = h.send(.alarmMissed(h.occurrence()))
    #expect(histories(effects).count == 1)
    #expect(h.machine.pendingHistory.isEmpty)
  }

  @Test("a machine made from a saved journal keeps it, and a restart leaves it alone")
  func journalSurvivesRestart() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence()))
    let entries = histories(h.send(.override))
    var restarted = WakeGuardMachine(guards: h.machine.guards, pendingHistory: h.machine.pendingHistory)
    #expect(restarted.handle(.daemonStarted, at: h.now, settings: h.settings) == [])
    #expect(restarted.pendingHistory == entries)
  }

  @Test("guards found later in a file that could not be read are adopted, except open and closed ones")
  func adoptGuards() {
    var h = Harness()
    h.send(.alarmDue(h.occurrence(id: 1)))
    let open = h.machine.guards[0]
    var other = Harness()
    other.send(.alarmDue(other.occurrence(id: 2)))
    other.send(.alarmDue(other.occurrence(id: 3)))
    let unseen = other.machine.guards[0]
    let closed = other.machine.guards[1]
    let entry = HistoryEntry(closing: closed, outcome: .woke, at: h.now)
    let adopted = h.machine.adopt(
      [open, unseen, closed], pendingHistory: [entry], except: [closed.occurrence])
    #expect(adopted)
    #expect(h.machine.guards.map(\.id) == [open.id, unseen.id])
    #expect(h.machine.pendingHistory == [entry])
    let again = h.machine.adopt([open], pendingHistory: [entry], except: [])
    #expect(!again, "nothing new")
  }

  @Test("guards.json with a journal round-trips; one written before the journal existed still reads")
  func recordWithJournal() throws {
    var h = Harness()
    h.send(.alarmDue(h.occurrence(id: 1)))
    h.send(.alarmDue(h.occurrence(id: 2)))
    h.send(.override)
    let record = EnforcementRecord(
      guards: h.machine.guards, scheduledThrough: h.now, pendingHistory: h.machine.pendingHistory)
    #expect(record.pendingHistory.count == 2)
    let bytes = try DocumentCodec.encode(record)
    #expect(try DocumentCodec.decode(EnforcementRecord.self, from: bytes) == record)
    let old = #"{"payload": {"guards": [], "unacknowledgedMissed": []}, "schemaVersion": 1}"#
    let decoded = try DocumentCodec.decode(EnforcementRecord.self, from: Array(old.utf8))
    #expect(decoded.pendingHistory.isEmpty)
  }
}
