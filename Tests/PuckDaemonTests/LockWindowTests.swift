import Foundation
import PuckCore
import PuckDaemon
import Testing

/// The hour before (issue 33 item 3, docs/DESIGN.md S12) on the manual clock, as the phone in
/// bed tries it at 05:30 for the 06:00 alarm: nothing that removes or delays the coming
/// occurrence is accepted, root included; adding and making earlier are, and a fresh change may
/// be corrected; a scan of the puck inside the window ends it quietly; override is root's one
/// way past it. (Requests here come from the test's own uid, which puckd takes as root; the
/// member's side is `LockWindowAttackTests`, end to end.)
@Suite("the hour before an alarm", .serialized)
struct LockWindowTests {
  private let everyDay = Set(Weekday.allCases)
  private let monday = LocalDate(year: 2026, month: 3, day: 2)

  /// A dock at 04:00 on Monday 2 March 2026 (UTC) whose daily 06:00 alarm (1) was set long
  /// ago, at 05:30, inside the default lock_before of an hour.
  private func lockedDock(config: String = "", at: String = "2026-03-02T05:30:00Z") throws -> ManualDock {
    let dock = try ManualDock(at: "2026-03-02T04:00:00Z", config: config)
    try dock.start()
    try dock.addAlarm(6, 0, days: everyDay)
    try dock.advance(to: at)
    return dock
  }

  private func expectLocked(
    _ reply: ControlReply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(reply.failure?.kind == .refused, "\(what): \(reply)", sourceLocation: sourceLocation)
    let message = reply.failure?.message ?? ""
    #expect(
      message.contains("is locked until it rings"), "\(what): \(message)", sourceLocation: sourceLocation)
    #expect(
      message.contains("A scan of the puck ends today's alarm"), "\(what): \(message)",
      sourceLocation: sourceLocation)
  }

  @Test(
    "inside the window every way of removing or delaying the alarm is refused, root included, and it rings")
  func everythingThatRemovesOrDelaysIsRefused() throws {
    let dock = try lockedDock()
    let before = try #require(try dock.request("alarm", "list").alarms)
    let attempts: [[String]] = [
      ["alarm", "skip", "1"], ["alarm", "disable", "1"], ["alarm", "rm", "1"],
      ["alarm", "edit", "1", "--time", "06:30"], ["alarm", "edit", "1", "--days", "tue"],
      ["alarm", "edit", "1", "--time", "05:00"], ["alarm", "edit", "1", "--no-puck"],
      ["alarm", "pause", "1", "--until", "tomorrow"], ["pause", "--until", "tomorrow"],
      ["unpair", "--yes"],
    ]
    for words in attempts {
      expectLocked(try dock.request(ControlRequest(commandLine: words)), words.joined(separator: " "))
    }
    let after = try #require(try dock.request("alarm", "list").alarms)
    #expect(after == before, "nothing changed")
    #expect(try dock.status().pairedTag != nil, "the puck is still paired")
    let locked = try #require(try dock.status().locked?.first)
    #expect(locked.alarmID == 1 && locked.until == Instant(utcDate: monday, secondsOfDay: 6 * 3600))
    #expect(after.first?.lockedUntil == locked.until, "alarm list says so too")
    try dock.advance(to: "2026-03-02T06:00:00Z")
    #expect(try dock.guards().first?.ringing == true, "the 06:00 alarm rings")
  }

  @Test("adding alarms, making one earlier and changing its label are accepted inside the window")
  func addingAndEarlierAreAccepted() throws {
    let dock = try lockedDock()
    #expect(try dock.request("alarm", "add", "05:45").ok == true)
    #expect(try dock.request("alarm", "edit", "1", "--time", "05:50").ok == true)
    #expect(try dock.request("alarm", "edit", "1", "--label", "up").ok == true)
    #expect(try dock.request("alarm", "edit", "1", "--puck").ok == true)
    try dock.advance(to: "2026-03-02T05:50:00Z")
    #expect(try dock.guards().count == 2, "both ring: 05:45 and the earlier 05:50")
  }

  @Test("outside the window, and with lock_before = 0s, the same changes are accepted")
  func outsideOrOffNothingIsLocked() throws {
    let early = try lockedDock(at: "2026-03-02T04:59:00Z")
    #expect(try early.status().locked == [])
    #expect(try early.request("alarm", "skip", "1").ok == true, "61 minutes before: not locked")
    let off = try lockedDock(config: "[enforcement]\nlock_before = 0s\n")
    #expect(try off.status().locked == [])
    #expect(try off.request("alarm", "rm", "1").ok == true)
  }

  @Test("a change made in the last 2 minutes may be corrected, but only back to what was locked before it")
  func aTypoMayBeCorrected() throws {
    let dock = try lockedDock()
    // A new alarm, locked at once, corrected within two minutes.
    #expect(try dock.request("alarm", "add", "05:50").ok == true)
    try dock.advance(.seconds(60))
    #expect(try dock.request("alarm", "edit", "2", "--time", "06:10").ok == true, "a typo is not a cheat")
    try dock.advance(.seconds(61))
    expectLocked(try dock.request("alarm", "edit", "2", "--time", "06:20"), "two minutes later")
    // The locked 06:00 made earlier, then "corrected" later than it ever was: refused.
    #expect(try dock.request("alarm", "edit", "1", "--time", "05:55").ok == true)
    expectLocked(try dock.request("alarm", "edit", "1", "--time", "07:00"), "later than the locked 06:00")
    #expect(try dock.request("alarm", "edit", "1", "--time", "06:00").ok == true, "back to 06:00 is fine")
  }

  @Test(
    "a scan inside the window: the alarm ends quietly, history says up before the alarm with the puck and reader, the wake-up check follows; tomorrow rings"
  )
  func aScanInsideTheWindowEndsItQuietly() throws {
    let dock = try lockedDock(config: "[enforcement]\nawake_check = 5min\n")
    let reader = try #require(dock.bench.reader)
    #expect(reader.isPolling, "the reader looks for the puck inside the window")
    reader.present(dock.puck)
    try dock.settle()
    let entry = try #require(try dock.history().first)
    #expect(entry.outcome == .upEarly)
    #expect(entry.puck?.contains("…:33:44") == true && entry.reader == "dock", "\(entry)")
    #expect(entry.occurrence.scheduledAt == Instant(utcDate: monday, secondsOfDay: 6 * 3600))
    #expect(entry.ending().contains("up before the alarm"))
    #expect(try dock.status().locked == [], "nothing is locked any more")
    #expect(!reader.isPolling, "the reader rests again")
    #expect(try dock.status().awakeCheck != nil, "the wake-up check is set, as after a wake-up")
    try dock.advance(to: "2026-03-02T05:35:00Z")
    #expect(try dock.request("awake").ok == true, "asked 5 minutes after the scan, and answered")
    try dock.advance(to: "2026-03-02T06:00:30Z")
    #expect(try dock.guards().isEmpty, "06:00 does not ring")
    #expect(dock.bench.audio?.sounds.count ?? 0 <= 1, "at most the wake-up check's cue was played")
    try dock.advance(to: "2026-03-03T06:00:00Z")
    #expect(try dock.guards().first?.ringing == true, "a daily alarm: Tuesday rings as ever")
  }

  @Test("a stranger's tag inside the window changes nothing; a scan outside it neither")
  func wrongTagAndOutside() throws {
    let dock = try lockedDock(at: "2026-03-02T04:30:00Z")
    #expect(dock.bench.reader?.isPolling == false, "no reader polls an hour and a half before")
    try dock.advance(to: "2026-03-02T05:30:00Z")
    dock.bench.reader?.present(dock.stranger)
    try dock.settle()
    #expect(try dock.history().isEmpty)
    #expect(try dock.status().locked?.count == 1)
    try dock.advance(to: "2026-03-02T06:00:00Z")
    #expect(try dock.guards().first?.ringing == true)
  }

  @Test("two alarms in one window end with one scan; the one-shot is retired")
  func twoAlarmsInOneWindow() throws {
    let dock = try ManualDock(at: "2026-03-02T04:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 0, days: everyDay)
    let oneShot = try dock.addAlarm(6, 20, on: monday)
    try dock.advance(to: "2026-03-02T05:25:00Z")
    #expect(try dock.status().locked?.map(\.alarmID) == [1, oneShot])
    dock.bench.reader?.present(dock.puck)
    try dock.settle()
    #expect(try dock.history().filter { $0.outcome == .upEarly }.count == 2)
    let list = try #require(try dock.request("alarm", "list").alarms)
    #expect(list.first { $0.alarm.id == oneShot }?.alarm.enabled == false, "the one-shot is over")
    try dock.advance(to: "2026-03-02T06:30:00Z")
    #expect(try dock.guards().isEmpty)
  }

  @Test("the early end survives a restart")
  func acrossARestart() throws {
    let dock = try lockedDock()
    dock.bench.reader?.present(dock.puck)
    try dock.settle()
    dock.stop()
    try dock.start()
    try dock.advance(to: "2026-03-02T06:10:00Z")
    #expect(try dock.guards().isEmpty, "06:00 does not ring after the restart")
    #expect(try dock.history().filter { $0.outcome == .upEarly }.count == 1, "recorded once")
  }

  @Test("on the night the clocks go forward the window is an hour of real time, not of the wall clock")
  func dstNight() throws {
    // Europe/Berlin, 29 March 2026: 02:00 CET becomes 03:00 CEST. 03:30 local is 01:30 UTC.
    let dock = try ManualDock(at: "2026-03-29T00:00:00Z", zone: "Europe/Berlin")
    try dock.start()
    try dock.addAlarm(3, 30, days: everyDay)
    try dock.advance(to: "2026-03-29T00:25:00Z")
    #expect(try dock.status().locked == [], "01:25 on the wall, 65 real minutes before")
    try dock.advance(to: "2026-03-29T00:35:00Z")
    expectLocked(try dock.request("alarm", "skip", "1"), "01:35 on the wall, 55 real minutes before")
    dock.bench.reader?.present(dock.puck)
    try dock.settle()
    let entry = try #require(try dock.history().first)
    #expect(entry.outcome == .upEarly)
    let due = Instant(unixSeconds: try ManualDock.unixSeconds("2026-03-29T01:30:00Z"))
    #expect(entry.occurrence.scheduledAt == due)
    #expect(try dock.guards().isEmpty)
  }

  @Test("override is root's one way past the lock: after its delay the alarm ends before it rings, recorded")
  func overrideBeforeTheAlarm() throws {
    let dock = try lockedDock(config: "[enforcement]\noverride_delay = 2min\n")
    let override = try dock.open("override", "--yes")
    #expect(try override.replies().first?.progress?.contains("WITHOUT a scan before they ring") == true)
    try dock.advance(.seconds(120))
    let reply = try #require(try override.replies().last)
    #expect(reply.ok == true && reply.message?.contains("WITHOUT a scan before it rang") == true, "\(reply)")
    #expect(try dock.history().first?.outcome == .overridden)
    #expect(try dock.status().overrides?.count == 1, "shown until acknowledged")
    try dock.advance(to: "2026-03-02T06:05:00Z")
    #expect(try dock.guards().isEmpty)
  }

  @Test(
    "with a long lock a scan at bedtime ends no morning alarm: the early scan counts only in its last hour")
  func aScanAtBedtimeEndsNothing() throws {
    // Simulated, so the scan arrives whether or not a reader would poll.
    let dock = try ManualDock(
      at: "2026-03-02T07:00:00Z", config: "[enforcement]\nlock_before = 8h\n", simulate: true)
    try dock.start()
    try dock.addAlarm(6, 0, days: everyDay)
    try dock.advance(to: "2026-03-02T23:00:00Z")
    expectLocked(try dock.request("alarm", "skip", "1"), "seven hours before, with lock_before = 8h")
    let bedtime = try dock.request("scan", "04:A2:3B:11:22:33:44")
    #expect(bedtime.ok == true && bedtime.message?.contains("up before the alarm") == false, "\(bedtime)")
    #expect(try dock.history().filter { $0.outcome == .upEarly }.isEmpty, "the bedtime scan ended nothing")
    try dock.advance(to: "2026-03-03T05:30:00Z")
    let morning = try dock.request("scan", "04:A2:3B:11:22:33:44")
    #expect(morning.message?.contains("up before the alarm") == true, "\(morning)")
    #expect(try dock.history().first?.outcome == .upEarly)
  }

  @Test("an override begun before the alarm does not carry into its ring: the ring cancels it")
  func anOverrideBeforeTheAlarmEndsWhenItRings() throws {
    let dock = try lockedDock(config: "[enforcement]\noverride_delay = 10min\n", at: "2026-03-02T05:55:00Z")
    let override = try dock.open("override", "--yes")
    #expect(try override.replies().first?.progress != nil)
    try dock.advance(to: "2026-03-02T06:00:00Z")
    #expect(try dock.guards().first?.ringing == true)
    let reply = try #require(try override.replies().last)
    #expect(reply.failure?.message.contains("the alarm rang before the delay had passed") == true, "\(reply)")
    try dock.advance(to: "2026-03-02T06:06:00Z")
    #expect(try dock.guards().count == 1, "the wake-up is open: nothing was overridden")
  }

  @Test("a reload that shortens lock_before at 05:30 lifts no lock until the 06:00 alarm has rung")
  func aShorterLockFromAReloadWaits() throws {
    let dock = try lockedDock()
    try "[enforcement]\nlock_before = 0s\n".write(
      toFile: dock.directory + "/puckd.conf", atomically: true, encoding: .utf8)
    #expect(try dock.request("reload").ok == true)
    expectLocked(try dock.request("alarm", "skip", "1"), "after the reload")
    try dock.advance(to: "2026-03-02T06:00:00Z")
    dock.bench.reader?.present(dock.puck)
    try dock.settle()
    try dock.advance(to: "2026-03-03T05:30:00Z")
    #expect(try dock.request("alarm", "skip", "1").ok == true, "the next day the shorter lock is in force")
  }

  @Test("the only reader cannot be removed inside the window")
  func theOnlyReaderStays() throws {
    let dock = try ManualDock(at: "2026-03-02T04:00:00Z", config: "[reader]\ndevice = none\n")
    try dock.start()
    #expect(try dock.request("reader", "add", "kitchen").ok == true)
    try dock.addAlarm(6, 0, days: everyDay)
    try dock.advance(to: "2026-03-02T05:30:00Z")
    #expect(dock.bench.remote("kitchen")?.isPolling == true, "the kitchen reader looks for the puck")
    expectLocked(try dock.request("reader", "rm", "kitchen"), "reader rm")
  }
}
