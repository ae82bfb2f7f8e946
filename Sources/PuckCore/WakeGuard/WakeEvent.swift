/// Something that happened to the dock, fed into `WakeGuardMachine`.
public enum WakeEvent: Hashable, Sendable {
  /// An alarm's fire time arrived (or it is being rung late, within the missed-alarm grace).
  case alarmDue(AlarmOccurrence)
  /// An alarm was due while the dock was down for longer than the grace: recorded, not rung.
  case alarmMissed(AlarmOccurrence)
  /// The dock button: silence and count a bypass, at once (someone is at the dock).
  case bypass
  /// `puckctl stop` through the control socket: a bypass only once the ring has been heard for
  /// `WakeGuardSettings.stopAfter`, and quiet for at most half as long as it was heard
  /// (docs/DESIGN.md W18), so no loop of stops keeps a wake-up quiet.
  case socketStop
  /// A press from the network (Home Assistant's button): a bypass only as
  /// `WakeGuardSettings.networkBypass` allows, and one that never ends a wake-up.
  case networkBypass
  /// A retry deadline passed (the machine checks which guards are due).
  case retryDue
  /// The ring went untouched for the ring timeout.
  case ringTimeout
  /// The reader saw a tag. `fresh` is false for a tag that was already on the reader when the
  /// reader started looking (it must be lifted and presented again to count, docs/DESIGN.md W7).
  /// `reader` names where it was read (`dock`, a remote reader's name, `simulated`) for history.
  case tagScanned(TagUID, fresh: Bool, reader: String? = nil)
  /// A tag scanned while no wake-up is open and `occurrences` are locked (inside `lock_before`
  /// of their time, docs/DESIGN.md S12): a fresh scan of a paired puck ends them before they
  /// ring ("up before the alarm").
  case scannedBeforeAlarm(TagUID, fresh: Bool, reader: String?, occurrences: [AlarmOccurrence])
  /// `sudo puckctl override` with no wake-up open: end the locked `occurrences` without a scan.
  case overrideBeforeAlarm([AlarmOccurrence])
  /// `sudo puckctl override`: close every open guard without a scan.
  case override
  /// The wake-up check after a scan was answered (the dock button or `puckctl awake`).
  case awakeConfirmed(AlarmOccurrence)
  /// The wake-up check got no answer in time: the wake-up opens again and rings (docs/DESIGN.md
  /// W16).
  case awakeUnanswered(AlarmOccurrence)
  /// The daemon started with these guards loaded from disk (docs/DESIGN.md W12).
  case daemonStarted
}

/// Something the daemon must do because of an event. Effects come in the order they must be
/// performed: guards are persisted before any sound starts.
public enum WakeEffect: Hashable, Sendable {
  /// Write the open guards to disk now (before ringing, after every change).
  case persistGuards
  /// Start the ring (audio and buzzer) for this guard's alarm identity.
  case startRing(RingIdentity)
  /// Stop the ring now: audio dropped, buzzer off.
  case stopRing
  /// Arm the ring timeout on the monotonic clock, from now.
  case armRingTimeout(Duration)
  /// Cancel the ring timeout.
  case cancelRingTimeout
  /// Arm the retry timer for a guard at a wall-clock instant.
  case armRetry(guardID: String, at: Instant)
  /// Cancel a guard's retry timer.
  case cancelRetry(guardID: String)
  /// Append to history. An entry of a closed guard is already journaled in
  /// `WakeGuardMachine.pendingHistory` (persisted by the `.persistGuards` before it); once it is
  /// appended, the daemon reports it with `historyRecorded(_:)`, and retries while it cannot.
  case recordHistory(HistoryEntry)
  /// Disable a one-shot alarm whose wake-up is over.
  case retireAlarm(AlarmID)
  /// Keep an occurrence that ended before its time from ringing (a skip of its date).
  case dismissOccurrence(AlarmOccurrence)
  /// A tag that is not the paired one was scanned (a short "wrong puck" buzz, a log line).
  case wrongTag(TagUID)
  /// The paired tag was seen but had been lying on the reader; it must be lifted and presented.
  case tagNotFresh(TagUID)
  /// A press from the network did not count, and why (logged, and an event for Home Assistant).
  case networkBypassRefused(NetworkBypassRefusal)
  /// A stop through the control socket came before the ring had been heard for `stop_after`;
  /// this much is left.
  case socketStopRefused(remaining: Duration)
}

/// What a ring is for: status and logs say "06:30 alarm, retry 3".
public struct RingIdentity: Hashable, Sendable, Codable {
  /// The alarm occurrence, with its original time and label.
  public var occurrence: AlarmOccurrence
  /// 0 for the first ring, then 1, 2, …
  public var retry: Int

  /// "06:30 alarm" or "06:30 alarm, retry 3".
  public var description: String {
    retry == 0 ? occurrence.displayName : "\(occurrence.displayName), retry \(retry)"
  }
}
