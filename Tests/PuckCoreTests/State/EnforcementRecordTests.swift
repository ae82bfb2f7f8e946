import Testing

@testable import PuckCore

/// `guards.json`: the bounded missed list and the fields added to version 1.
@Suite struct EnforcementRecordTests {
  private func occurrence(_ seconds: Int64) -> AlarmOccurrence {
    AlarmOccurrence(
      alarmID: 1, label: "", time: WallTime(hour: 6, minute: 30), scheduledAt: Instant(unixSeconds: seconds),
      requiresPuck: true, isOneShot: false)
  }

  @Test func theMissedListKeepsTheNewestAndCountsTheRest() {
    var record = EnforcementRecord()
    record.noteMissed((1...4000).map { occurrence(Int64($0)) })
    #expect(record.unacknowledgedMissed.count == EnforcementRecord.missedShown)
    #expect(record.unacknowledgedMissed.last?.scheduledAt == Instant(unixSeconds: 4000))
    #expect(record.unacknowledgedMissed.first?.scheduledAt == Instant(unixSeconds: 3991))
    #expect(record.unacknowledgedMissedCount == 4000)
    record.acknowledgeMissed()
    #expect(record.unacknowledgedMissedCount == 0 && record.unacknowledgedMissed.isEmpty)
  }

  @Test("the file read again after an error: missed alarms merged oldest first, none counted twice")
  func mergingTheFileReadAgain() {
    // This run worked from the last good copy (an earlier state of the same file).
    var memory = EnforcementRecord()
    memory.noteMissed((1...12).map { occurrence(Int64($0)) })
    var disk = EnforcementRecord()
    disk.noteMissed((1...20).map { occurrence(Int64($0)) })
    disk.missedBacklog.ranges = [
      MissedRange(
        alarm: Alarm(id: 1, time: WallTime(hour: 6, minute: 30), recurrence: .weekly(Set(Weekday.allCases))),
        after: Instant(unixSeconds: 100), through: Instant(unixSeconds: 900_000))
    ]
    // This run also found a newer miss of its own.
    memory.noteMissed([occurrence(30)])
    memory.mergeMissed(from: disk)
    #expect(memory.unacknowledgedMissed.map(\.scheduledAt.unixSeconds) == Array(12...20) + [30])
    #expect(memory.unacknowledgedMissedCount == 21, "20 from the file and this run's own, none twice")
    #expect(memory.missedBacklog.ranges == disk.missedBacklog.ranges)
    memory.mergeMissed(from: disk)
    #expect(memory.missedBacklog.ranges.count == 1, "a range already known is not added again")
  }

  @Test func aFileFromBeforeTheCapIsTrimmedOnRead() throws {
    let list = (1...500).map {
      #"{"alarmID": 1, "label": "", "time": "06:30", "scheduledAt": "\#(Instant(unixSeconds: Int64($0)))", "requiresPuck": true, "isOneShot": false}"#
    }
    let text =
      #"{"payload": {"guards": [], "unacknowledgedMissed": [\#(list.joined(separator: ","))]}, "schemaVersion": 1}"#
    let record = try DocumentCodec.decode(EnforcementRecord.self, from: Array(text.utf8))
    #expect(record.unacknowledgedMissed.count == EnforcementRecord.missedShown)
    #expect(record.unacknowledgedMissedCount == 500)
    #expect(record.missedBacklog.isEmpty && record.handledThrough.isEmpty)
  }

  @Test func newFieldsRoundTripAndAreLeftOutWhenEmpty() throws {
    var record = EnforcementRecord(scheduledThrough: Instant(unixSeconds: 1000))
    let plain = String(decoding: try DocumentCodec.encode(record), as: UTF8.self)
    #expect(!plain.contains("handledThrough") && !plain.contains("missedBacklog") && !plain.contains("older"))
    record.handledThrough = [7: Instant(unixSeconds: 900)]
    let alarm = Alarm(id: 7, time: WallTime(hour: 6, minute: 30), recurrence: .weekly([.monday]))
    record.missedBacklog = MissedBacklog(ranges: [
      MissedRange(alarm: alarm, after: Instant(unixSeconds: 0), through: Instant(unixSeconds: 900))
    ])
    record.noteMissed((1...12).map { occurrence(Int64($0)) })
    let decoded = try DocumentCodec.decode(EnforcementRecord.self, from: try DocumentCodec.encode(record))
    #expect(decoded == record)
    #expect(
      decoded.progress
        == ScheduleProgress(
          scheduledThrough: Instant(unixSeconds: 1000), handledThrough: [7: Instant(unixSeconds: 900)]))
  }

  @Test("each change of the record's one writer does what it names, and nothing else")
  func recordChanges() {
    let alarm = Alarm(id: 7, time: WallTime(hour: 6, minute: 30), recurrence: .weekly([.monday]))
    let range = MissedRange(alarm: alarm, after: Instant(unixSeconds: 0), through: Instant(unixSeconds: 900))
    let progress = ScheduleProgress(
      scheduledThrough: Instant(unixSeconds: 1000), handledThrough: [7: Instant(unixSeconds: 900)])
    var record = EnforcementRecord()
    record.apply(.scheduleHandled(progress, missed: [range]))
    #expect(record.progress == progress && record.missedBacklog.ranges == [range])
    record.apply(.missedRecorded(backlog: MissedBacklog(), occurrences: [occurrence(5)]))
    #expect(record.missedBacklog.isEmpty && record.unacknowledgedMissed == [occurrence(5)])
    record.apply(.missedNoted([occurrence(6)]))
    #expect(record.unacknowledgedMissedCount == 2)
    let check = AwakeCheckState(occurrence: occurrence(6), askAt: Instant(unixSeconds: 2000))
    record.apply(.awakeCheck(check))
    #expect(record.awakeCheck == check)
    record.apply(.overridden(at: Instant(unixSeconds: 3000)))
    #expect(record.unacknowledgedOverrides == [Instant(unixSeconds: 3000)])
    record.apply(.awakeCheck(nil))
    #expect(record.awakeCheck == nil)
    record.apply(.acknowledged)
    #expect(record.unacknowledgedMissedCount == 0 && record.unacknowledgedOverrides.isEmpty)
    #expect(record.progress == progress, "the acknowledge leaves the schedule alone")
  }
}
