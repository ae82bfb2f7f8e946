import Foundation
import Glibc
import Testing

/// Attacks on the schedule (issue 8, items 5, 6 and 13): years of downtime, a clock stepped
/// back behind alarms already handled, and a client in another time zone than the daemon. Each
/// runs the real `puckd` and `puckctl`.
@Suite("puckd schedule attacks", .serialized)
struct ScheduleAttackTests {
  private static let daily = #"["mon","tue","wed","thu","fri","sat","sun"]"#

  /// `date` formatted in `zone` (UTC unless given).
  private func text(_ date: Date, _ format: String, zone: String = "UTC") -> String {
    let formatter = DateFormatter()
    formatter.timeZone = TimeZone(identifier: zone)
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = format
    return formatter.string(from: date)
  }

  private func iso(_ date: Date) -> String { text(date, "yyyy-MM-dd'T'HH:mm:ss'Z'") }

  private func alarm(_ id: Int, at time: String, days: String = daily) -> String {
    #"{"id": \#(id), "time": "\#(time)", "days": \#(days), "label": "", "enabled": true, "requiresPuck": true}"#
  }

  private func guards(scheduledThrough: Date) -> String {
    #"{"guards": [], "scheduledThrough": "\#(iso(scheduledThrough))", "unacknowledgedMissed": []}"#
  }

  /// The history file's entries as (outcome, alarm ID, scheduledAt), read straight from disk so
  /// no paging or limit of `puckctl history` hides a duplicate.
  private func historyOnDisk(_ dock: DaemonHarness) -> [(outcome: String, alarm: Int, at: String)] {
    let text = (try? String(contentsOfFile: dock.stateDirectory + "/history.jsonl", encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let payload = object["payload"] as? [String: Any],
        let occurrence = payload["occurrence"] as? [String: Any],
        let outcome = payload["outcome"] as? String, let id = occurrence["alarmID"] as? Int,
        let at = occurrence["scheduledAt"] as? String
      else { return nil }
      return (outcome, id, at)
    }
  }

  private func alarmList(_ dock: DaemonHarness) throws -> [[String: Any]] {
    let result = try dock.ctl("alarm", "list", "--json")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    return object?["alarms"] as? [[String: Any]] ?? []
  }

  // MARK: - Item 5: catch-up after long downtime

  /// The due one rings first, status answers at once, a kill mid-catch-up repeats nothing, every
  /// missed occurrence is in history once, and status caps the list.
  @Test("six years down with five daily alarms: prompt, resumable, no duplicates, a capped list")
  func longDowntime() throws {
    let days = 6 * 365
    let now = Date()
    let dock = try DaemonHarness(audio: false)
    dock.environment["TZ"] = "UTC"
    // Four alarms hours away from now (each has exactly `days` occurrences in the downtime, all
    // too late to ring) and one five minutes ago (its newest occurrence rings, the rest are missed).
    let offsets: [TimeInterval] = [-5 * 3600, -3 * 3600, 3 * 3600, 6 * 3600, -300]
    let alarms = offsets.enumerated().map { alarm($0.offset + 1, at: text(now + $0.element, "HH:mm:ss")) }
    try dock.writeState(
      "alarms.json", payload: #"{"alarms": [\#(alarms.joined(separator: ","))], "nextID": 6}"#)
    try dock.writeState(
      "guards.json", payload: guards(scheduledThrough: now - TimeInterval(days) * 86400))
    let expected = 5 * days - 1

    // The old daemon recorded every occurrence (an fsync and a status rebuild each) before it
    // listened: minutes for this. The harness gives the socket 10 s.
    try dock.start()
    // Kill it at once, while it records (or, on a fast machine, just after), and start again:
    // nothing may be written twice.
    dock.stop(signal: SIGKILL)
    try dock.start()
    #expect(try dock.isRinging(), "the occurrence within the grace rang first, and survives the kill")

    try waitUntil(timeout: 120, "every missed occurrence is recorded") {
      historyOnDisk(dock).filter { $0.outcome == "missed" }.count >= expected
    }
    try waitUntil(timeout: 10, "status counts them all") {
      (try dock.status()["missedTotal"] as? Int) == expected
    }
    let missed = historyOnDisk(dock).filter { $0.outcome == "missed" }
    #expect(missed.count == expected)
    let distinct = Set(missed.map { "\($0.alarm)@\($0.at)" })
    #expect(distinct.count == missed.count, "no occurrence recorded twice")
    for id in 1...4 { #expect(missed.filter { $0.alarm == id }.count == days) }
    #expect(missed.filter { $0.alarm == 5 }.count == days - 1)
    #expect(zip(missed, missed.dropFirst()).allSatisfy { $0.at <= $1.at }, "oldest first")

    let status = try dock.status()
    let shown = status["missed"] as? [String] ?? []
    #expect(!shown.isEmpty && shown.count <= 10, "status shows the newest few, not \(shown.count)")
    let printed = try dock.ctl("status").stdout
    #expect(printed.contains("and \(expected - shown.count) more"))
    let guardsFile = try String(contentsOfFile: dock.stateDirectory + "/guards.json", encoding: .utf8)
    #expect(guardsFile.utf8.count < 64 * 1024, "guards.json keeps a bounded missed list")

    #expect(try dock.ctl("acknowledge").status == 0)
    #expect(try (dock.status()["missed"] as? [String] ?? []).isEmpty)
  }

  @Test("a slice that reached history just before a kill (backlog not yet saved) is not written again")
  func interruptedSliceIsNotRepeated() throws {
    let dock = try DaemonHarness(audio: false)
    dock.environment["TZ"] = "UTC"
    let now = Date()
    let time = text(now - 7200, "HH:mm:ss")
    try dock.writeState("alarms.json", payload: #"{"alarms": [\#(alarm(1, at: time))], "nextID": 2}"#)
    // Ten days of one daily alarm still to record, as guards.json holds them mid-catch-up ...
    let after = now - 10 * 86400 - 3600
    try dock.writeState(
      "guards.json",
      payload: #"""
        {"guards": [], "scheduledThrough": "\#(iso(now))", "unacknowledgedMissed": [],
         "missedBacklog": [{"alarm": \#(alarm(1, at: time)), "after": "\#(iso(after))", "through": "\#(iso(now))"}]}
        """#)
    // ... and the first three of them already in history: the write before the kill landed.
    let written = (1...3).map { day in
      let at = iso(now - 7200 - TimeInterval(10 - day) * 86400)  // the oldest three
      return
        #"{"payload":{"bypassCount":0,"closedAt":"\#(iso(now))","occurrence":{"alarmID":1,"isOneShot":false,"label":"","requiresPuck":true,"scheduledAt":"\#(at)","time":"\#(time)"},"outcome":"missed","rings":0},"schemaVersion":1}"#
    }
    try (written.joined(separator: "\n") + "\n").write(
      toFile: dock.stateDirectory + "/history.jsonl", atomically: true, encoding: .utf8)
    try dock.start()

    try waitUntil(timeout: 20, "the backlog is recorded") {
      (try? String(contentsOfFile: dock.stateDirectory + "/guards.json", encoding: .utf8))
        .map { !$0.contains("missedBacklog") } ?? false
    }
    let missed = historyOnDisk(dock).filter { $0.outcome == "missed" }
    #expect(missed.count == 10)
    #expect(Set(missed.map(\.at)).count == 10, "no occurrence recorded twice")
  }

  // MARK: - Item 6: after a backward clock step

  @Test("after a backward step, a new alarm in the re-lived window rings, and list, add and status agree")
  func addedAfterBackwardStep() throws {
    let now = Date()
    let dock = try DaemonHarness(audio: false)
    dock.environment["TZ"] = "UTC"
    // What the daemon finds after the clock went back 30 minutes: everything up to now + 30 min
    // was already handled (within the hour it trusts without a synchronised clock).
    try dock.writeState("guards.json", payload: guards(scheduledThrough: now + 1800))
    try dock.start()

    let fire = Date() + 4
    let add = try dock.ctl("alarm", "add", text(fire, "HH:mm:ss"), "--date", text(fire, "yyyy-MM-dd"))
    #expect(add.status == 0, "\(add.stderr)")
    #expect(add.stdout.contains("next"), "the reply promises a fire: \(add.stdout)")
    let listed = try alarmList(dock).first?["next"] as? String
    #expect(listed == iso(fire), "alarm list shows the fire the timer will use")
    #expect(try dock.status()["nextAlarmAt"] as? String == iso(fire), "status agrees with the list")

    try waitUntil(timeout: 12, "the promised alarm rings") { try dock.isRinging() }
  }

  @Test("after a backward step, an alarm enabled in the re-lived window rings")
  func enabledAfterBackwardStep() throws {
    let now = Date()
    let dock = try DaemonHarness(audio: false)
    dock.environment["TZ"] = "UTC"
    let fire = now + 6
    let disabled =
      #"{"id": 1, "time": "\#(text(fire, "HH:mm:ss"))", "date": "\#(text(fire, "yyyy-MM-dd"))", "label": "", "enabled": false, "requiresPuck": true}"#
    try dock.writeState("alarms.json", payload: #"{"alarms": [\#(disabled)], "nextID": 2}"#)
    try dock.writeState("guards.json", payload: guards(scheduledThrough: now + 1800))
    try dock.start()
    #expect(try dock.ctl("alarm", "enable", "1").status == 0)
    #expect(try alarmList(dock).first?["next"] as? String == iso(fire))
    try waitUntil(timeout: 14, "the enabled alarm rings") { try dock.isRinging() }
  }

  @Test("after a backward step, skip skips the next occurrence that will ring, not one already handled")
  func skipAfterBackwardStep() throws {
    let now = Date()
    let dock = try DaemonHarness(audio: false)
    dock.environment["TZ"] = "UTC"
    // A daily alarm ten minutes ahead whose occurrence today was already handled (rung before
    // the clock went back): the next one to ring is tomorrow's.
    let ring = now + 600
    try dock.writeState(
      "alarms.json", payload: #"{"alarms": [\#(alarm(1, at: text(ring, "HH:mm:ss")))], "nextID": 2}"#)
    try dock.writeState("guards.json", payload: guards(scheduledThrough: now + 1800))
    try dock.start()

    let tomorrow = ring + 86400
    #expect(
      try alarmList(dock).first?["next"] as? String == iso(tomorrow), "list counts from the handled point")
    #expect(try dock.status()["nextAlarmAt"] as? String == iso(tomorrow))

    let skip = try dock.ctl("alarm", "skip", "1")
    #expect(skip.status == 0, "\(skip.stderr)")
    let alarm = try alarmList(dock).first
    let skipped = (alarm?["alarm"] as? [String: Any])?["skippedDate"] as? String
    #expect(skipped == text(tomorrow, "yyyy-MM-dd"), "skip marks tomorrow, the next to ring")
    #expect(alarm?["next"] as? String == iso(tomorrow + 86400))
    #expect(try dock.status()["nextAlarmAt"] as? String == iso(tomorrow + 86400))
  }

  // MARK: - Item 13: relative dates in the daemon's zone

  @Test("alarm add with no date, --date today and --date tomorrow are resolved in puckd's zone")
  func relativeDatesUseTheDaemonZone() throws {
    let daemonZone = "Pacific/Pago_Pago"  // UTC-11
    let dock = try DaemonHarness(audio: false)
    dock.environment["TZ"] = daemonZone
    try dock.start()
    // puckctl 25 hours ahead (UTC+14): its "today" is always another date than the daemon's.
    func add(_ arguments: String...) throws -> ProcessResult {
      try run(
        "puckctl", ["--socket", dock.socketPath, "alarm", "add"] + arguments,
        environment: ["TZ": "Pacific/Kiritimati"])
    }
    let before = Date()
    let later = before + 7200
    #expect(try add("12:00", "--date", "today").status == 0)
    #expect(try add("12:00", "--date", "tomorrow").status == 0)
    #expect(try add(text(later, "HH:mm:ss", zone: daemonZone)).status == 0)
    let after = Date()

    let dates = try alarmList(dock).map { ($0["alarm"] as? [String: Any])?["date"] as? String }
    #expect(dates.count == 3)
    // The daemon's date at the moment of the request (either side of it, should midnight pass).
    func daemonDate(_ date: Date, plusDays days: Int = 0) -> [String] {
      [date, after].map { text($0 + TimeInterval(days * 86400), "yyyy-MM-dd", zone: daemonZone) }
    }
    #expect(daemonDate(before).contains(dates.first.flatMap { $0 } ?? "none"), "today: \(dates)")
    #expect(daemonDate(before, plusDays: 1).contains(dates.dropFirst().first.flatMap { $0 } ?? "none"))
    #expect(dates.last.flatMap { $0 } == text(later, "yyyy-MM-dd", zone: daemonZone), "the next HH:MM")
  }
}
