/// Whether the dock is protected: an enabled alarm will ring and only the paired tag ends it.
/// A pure function of a `StatusSnapshot`; the daemon, the LED and `puckctl` all read this one
/// answer (docs/DESIGN.md R1).
public struct ProtectionVerdict: Hashable, Sendable {
  /// Every reason against, most urgent first; empty when protected.
  public var reasons: [ProtectionReason]
  /// What does not cost protection but must be seen before bed: a part the config names that
  /// failed while something else can still ring (`StatusWarning.warnings(for:)`).
  public var warnings: [StatusWarning]

  /// True when nothing stands against the wake-up.
  public var protected: Bool { reasons.isEmpty }

  /// The verdict on what `snapshot` knows.
  public init(_ snapshot: StatusSnapshot) {
    var reasons: [ProtectionReason] = []
    // A state file that cannot be read or a wake-up missing from history comes first: the
    // dock may be working from an old copy without knowing it.
    if !snapshot.unreadableFiles.isEmpty {
      reasons.append(.stateFilesUnreadable(files: snapshot.unreadableFiles))
    }
    if let history = snapshot.unrecordedHistory {
      reasons.append(.historyNotRecorded(count: history.count, error: history.error))
    }
    // A simulated reader is not a fault, but it enforces nothing; say that instead.
    if snapshot.simulated {
      reasons.append(.simulated)
    } else {
      // Every reader the dock has, its own and remote ones: one that cannot be reached is a
      // way out of the wake-up that does not work (docs/DESIGN.md M4).
      for reader in snapshot.devices where reader.device == .reader && reader.state != .ok {
        reasons.append(.readerFault(state: reader.state, detail: reader.detail))
      }
    }
    if let problem = snapshot.pairingProblem {
      reasons.append(.pairingUnreadable(problem: problem))
    } else if snapshot.pairedTag == nil {
      reasons.append(.noTagPaired)
    }
    // One working output is enough to wake someone (W2); only both failing counts.
    if let audio = snapshot.health(of: .audio), audio.state != .ok,
      snapshot.health(of: .buzzer)?.state != .ok
    {
      reasons.append(.nothingCanRing(audioDetail: audio.detail))
    }
    // Only the kernel's copy of the timer counts, read back for this snapshot (R5).
    if let timer = snapshot.timerProblem {
      reasons.append(.timerNotArmed(detail: timer))
    }
    if !snapshot.failedChecks.isEmpty {
      reasons.append(.checkFailed(parts: snapshot.failedChecks))
    }
    if !snapshot.hasEnabledAlarm {
      reasons.append(.noEnabledAlarm)
    } else if snapshot.nextAlarm == nil {
      reasons.append(.noAlarmAhead)
    }
    if let next = snapshot.nextAlarm, !next.requiresPuck {
      reasons.append(.nextAlarmWithoutPuck(alarm: next.id))
    }
    // Unknown is not a reason: many systems cannot say, and the alarm still rings.
    if snapshot.clockSynchronized == false {
      reasons.append(.clockNotSynchronized)
    }
    let problems = snapshot.problems.count
    if problems > 0 {
      reasons.append(.problemsNeedAttention(count: problems))
    }
    self.reasons = reasons
    warnings = StatusWarning.warnings(for: snapshot.devices)
  }
}
