/// A change to the enforcement record (`guards.json`) besides the wake guards themselves: how
/// far the schedule is handled, the missed backlog, the wake-up check, the override notes and
/// the acknowledge. The daemon has one writer of the record: a change goes to it with the
/// wake-up event it belongs to, and the two are saved in one write (docs/DESIGN.md §6, D12).
public enum RecordChange: Hashable, Sendable {
  /// The schedule is handled up to `progress`; the occurrences `missed` on the way wait in the
  /// backlog to be recorded.
  case scheduleHandled(ScheduleProgress, missed: [MissedRange] = [])
  /// A slice of the backlog is in history: `backlog` is what is left, and `occurrences` are
  /// shown in status until acknowledged.
  case missedRecorded(backlog: MissedBacklog, occurrences: [AlarmOccurrence])
  /// Occurrences recorded as missed one at a time (a guard that could not ring), shown in status.
  case missedNoted([AlarmOccurrence])
  /// The wake-up check waiting after a scan, or none.
  case awakeCheck(AwakeCheckState?)
  /// An override closed the wake-ups at this instant.
  case overridden(at: Instant)
  /// The owner has seen the missed alarms and the overrides.
  case acknowledged
}

extension EnforcementRecord {
  /// The record with `change` made.
  public mutating func apply(_ change: RecordChange) {
    switch change {
    case .scheduleHandled(let progress, let missed):
      self.progress = progress
      missedBacklog.ranges += missed
    case .missedRecorded(let backlog, let occurrences):
      missedBacklog = backlog
      noteMissed(occurrences)
    case .missedNoted(let occurrences):
      noteMissed(occurrences)
    case .awakeCheck(let check):
      awakeCheck = check
    case .overridden(let instant):
      noteOverride(at: instant)
    case .acknowledged:
      acknowledgeMissed()
    }
  }
}
