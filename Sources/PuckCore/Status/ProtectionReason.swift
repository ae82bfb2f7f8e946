/// One reason the dock is not protected. `status --json` carries each as an object with a
/// stable `code` and the case's parameters (`{"code": "reader-fault", "state": "fault",
/// "detail": "…"}`); `text` is the line a person reads. Codes are never renamed or reused:
/// scripts match on them (docs/DESIGN.md R3).
public enum ProtectionReason: Hashable, Sendable {
  /// State files cannot be read at all and are held (D4). Code `state-files-unreadable`.
  case stateFilesUnreadable(files: [StatusSnapshot.UnreadableFile])
  /// Closed wake-ups wait in `guards.json` because history refused them (D5). Code
  /// `history-not-recorded`.
  case historyNotRecorded(count: Int, error: String)
  /// `puckd --simulate`: nothing enforces the wake-up. Code `simulated`.
  case simulated
  /// The reader is not working (`state` is `fault` or `absent`). Code `reader-fault`.
  case readerFault(state: DeviceHealth.State, detail: String)
  /// `pairing.json` cannot be read, so nobody knows which tag ends a ring. Code
  /// `pairing-unreadable`.
  case pairingUnreadable(problem: String)
  /// No tag is paired. Code `no-tag-paired`.
  case noTagPaired
  /// The audio has a fault and no buzzer works. Code `nothing-can-ring`.
  case nothingCanRing(audioDetail: String)
  /// The alarm timer the kernel holds is not the next deadline (R5). Code `timer-not-armed`.
  case timerNotArmed(detail: String)
  /// The last pre-flight check found these parts failing. Code `check-failed`.
  case checkFailed(parts: [String])
  /// Every alarm is disabled (or there is none). Code `no-enabled-alarm`.
  case noEnabledAlarm
  /// Alarms are enabled but none will ring again. Code `no-alarm-ahead`.
  case noAlarmAhead
  /// The next alarm was added with `--no-puck`. Code `next-alarm-without-puck`.
  case nextAlarmWithoutPuck(alarm: AlarmID)
  /// The kernel says the clock is not synchronised. Code `clock-not-synchronised`.
  case clockNotSynchronized
  /// `count` problem lines need attention. Code `problems-need-attention`.
  case problemsNeedAttention(count: Int)
  /// A code this build does not know, from a newer puckd; its text is in the status's
  /// `reasons` at the same index.
  case unrecognized(code: String)

  /// The stable code `status --json` carries.
  public var code: String {
    switch self {
    case .stateFilesUnreadable: "state-files-unreadable"
    case .historyNotRecorded: "history-not-recorded"
    case .simulated: "simulated"
    case .readerFault: "reader-fault"
    case .pairingUnreadable: "pairing-unreadable"
    case .noTagPaired: "no-tag-paired"
    case .nothingCanRing: "nothing-can-ring"
    case .timerNotArmed: "timer-not-armed"
    case .checkFailed: "check-failed"
    case .noEnabledAlarm: "no-enabled-alarm"
    case .noAlarmAhead: "no-alarm-ahead"
    case .nextAlarmWithoutPuck: "next-alarm-without-puck"
    case .clockNotSynchronized: "clock-not-synchronised"
    case .problemsNeedAttention: "problems-need-attention"
    case .unrecognized(let code): code
    }
  }

  /// The line `puckctl status` shows under NOT PROTECTED, and the daemon's `reasons` strings
  /// (kept for readers of `status --json` from before the codes). One wording for both, so
  /// it lives here; tests and people match on it, so change it only on purpose.
  public var text: String {
    switch self {
    case .stateFilesUnreadable(let files):
      "state file(s) cannot be read: \(files.map(\.file).joined(separator: ", ")) — "
        + "not written over until they can be read again (see Problem lines)"
    case .historyNotRecorded(let count, _):
      "\(count) closed wake-up(s) not yet recorded in history (see Problem lines)"
    case .simulated:
      "SIMULATED dock: there is no reader, scans come from 'puckctl scan' — nothing enforces the wake-up"
    case .readerFault(_, let detail): "reader: \(detail)"
    case .pairingUnreadable(let problem): problem
    case .noTagPaired: "no tag paired — run: sudo puckctl pair"
    case .nothingCanRing(let audioDetail):
      "nothing can ring: audio has a fault (\(audioDetail)) and there is no working buzzer"
    case .timerNotArmed(let detail): "alarm timer: \(detail)"
    case .checkFailed(let parts):
      "the last pre-flight check failed: \(parts.joined(separator: ", ")) — see 'puckctl check'"
    case .noEnabledAlarm: "no enabled alarm — add one: puckctl alarm add 06:30 --days weekdays"
    case .noAlarmAhead: "no alarm will ring again (one-shots in the past?)"
    case .nextAlarmWithoutPuck(let alarm): "the next alarm (\(alarm)) does not require the puck (--no-puck)"
    case .clockNotSynchronized:
      "the system clock is not synchronised (no NTP yet?); alarms follow the clock as it is"
    case .problemsNeedAttention: "a state or config file needs attention (see Problem lines)"
    case .unrecognized(let code): "not protected (\(code))"
    }
  }
}

extension ProtectionReason: Codable {
  /// `code` plus the case's parameters, flat in one object.
  private enum CodingKeys: String, CodingKey {
    case code, files, count, error, state, detail, problem, audioDetail, alarm, parts
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let code = try container.decode(String.self, forKey: .code)
    switch code {
    case "state-files-unreadable":
      self = .stateFilesUnreadable(
        files: try container.decode([StatusSnapshot.UnreadableFile].self, forKey: .files))
    case "history-not-recorded":
      self = .historyNotRecorded(
        count: try container.decode(Int.self, forKey: .count),
        error: try container.decode(String.self, forKey: .error))
    case "simulated": self = .simulated
    case "reader-fault":
      self = .readerFault(
        state: try container.decode(DeviceHealth.State.self, forKey: .state),
        detail: try container.decode(String.self, forKey: .detail))
    case "pairing-unreadable":
      self = .pairingUnreadable(problem: try container.decode(String.self, forKey: .problem))
    case "no-tag-paired": self = .noTagPaired
    case "nothing-can-ring":
      self = .nothingCanRing(audioDetail: try container.decode(String.self, forKey: .audioDetail))
    case "timer-not-armed": self = .timerNotArmed(detail: try container.decode(String.self, forKey: .detail))
    case "check-failed": self = .checkFailed(parts: try container.decode([String].self, forKey: .parts))
    case "no-enabled-alarm": self = .noEnabledAlarm
    case "no-alarm-ahead": self = .noAlarmAhead
    case "next-alarm-without-puck":
      self = .nextAlarmWithoutPuck(alarm: try container.decode(AlarmID.self, forKey: .alarm))
    case "clock-not-synchronised": self = .clockNotSynchronized
    case "problems-need-attention":
      self = .problemsNeedAttention(count: try container.decode(Int.self, forKey: .count))
    // A newer daemon's reason must not make the whole status unreadable.
    default: self = .unrecognized(code: code)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(code, forKey: .code)
    switch self {
    case .stateFilesUnreadable(let files): try container.encode(files, forKey: .files)
    case .historyNotRecorded(let count, let error):
      try container.encode(count, forKey: .count)
      try container.encode(error, forKey: .error)
    case .readerFault(let state, let detail):
      try container.encode(state, forKey: .state)
      try container.encode(detail, forKey: .detail)
    case .pairingUnreadable(let problem): try container.encode(problem, forKey: .problem)
    case .nothingCanRing(let audioDetail): try container.encode(audioDetail, forKey: .audioDetail)
    case .nextAlarmWithoutPuck(let alarm): try container.encode(alarm, forKey: .alarm)
    case .timerNotArmed(let detail): try container.encode(detail, forKey: .detail)
    case .checkFailed(let parts): try container.encode(parts, forKey: .parts)
    case .problemsNeedAttention(let count): try container.encode(count, forKey: .count)
    case .simulated, .noTagPaired, .noEnabledAlarm, .noAlarmAhead, .clockNotSynchronized, .unrecognized: break
    }
  }
}
