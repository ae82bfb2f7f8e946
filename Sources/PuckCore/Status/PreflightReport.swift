/// What the pre-flight check found (docs/DESIGN.md R5): each part the next alarm needs, read
/// back from where it lives (the kernel's timer, the pairing file on disk, the devices' own
/// answers), never taken from memory of a call that returned. `status` carries the last report,
/// `puckctl check` prints one line per part.
public struct PreflightReport: Hashable, Sendable, Codable {
  /// What started a check.
  public enum Trigger: String, Hashable, Sendable, Codable {
    /// The daemon started.
    case start
    /// `[enforcement] check_before` ahead of an alarm.
    case beforeAlarm = "before-alarm"
    /// `puckctl check`.
    case request
  }

  /// What a part's failure means for the alarm.
  public enum Severity: String, Hashable, Sendable, Codable {
    /// The alarm needs the part: its failure fails the check (`check-failed`).
    case failure
    /// The alarm rings and ends without it (a buzzer beside working audio, the dock button,
    /// the LED): shown as FAILED with a warning, and the check still passes.
    case warning
  }

  /// One part and what the check found.
  public struct Part: Hashable, Sendable, Codable {
    /// `reader`, `remote kitchen`, `pairing`, `audio`, `mixer`, `sound`, `buzzer`, `button`, `led`,
    /// `clock`, `timer`.
    public var name: String
    public var ok: Bool
    /// What was found, for a person.
    public var detail: String
    /// For a failed part, what to do next ("the line GPIO22 is held by "foo": …"); nil when
    /// `detail` says it all.
    public var next: String?
    /// `.warning` for a failed part the alarm does without; nil means `.failure` (and is what
    /// an older puckd sends).
    public var severity: Severity?

    public init(
      _ name: String, ok: Bool, _ detail: String, next: String? = nil, severity: Severity = .failure
    ) {
      self.name = name
      self.ok = ok
      self.detail = detail
      self.next = next
      self.severity = severity == .warning ? .warning : nil
    }

    /// A failed part whose failure is only a warning.
    public var isWarning: Bool { !ok && severity == .warning }

    /// `reader: ok — pn532_uart:/dev/serial0 answers` or `audio: FAILED — cannot open …`.
    public var line: String { "\(name): \(ok ? "ok" : "FAILED") — \(detail)" }
  }

  /// When the check finished.
  public var at: Instant
  public var trigger: Trigger
  /// Every part, in a fixed order.
  public var parts: [Part]

  public init(at: Instant, trigger: Trigger, parts: [Part]) {
    self.at = at
    self.trigger = trigger
    self.parts = parts
  }

  /// The parts that failed and fail the check: the alarm needs them.
  public var failures: [Part] { parts.filter { !$0.ok && !$0.isWarning } }

  /// The parts that failed but the alarm does without (`Severity.warning`): shown as FAILED,
  /// and the check still passes.
  public var warnings: [Part] { parts.filter(\.isWarning) }

  /// True when every part the alarm needs passed; `warnings` may still name failed parts.
  public var passed: Bool { failures.isEmpty }

  /// The verdict line `puckctl check` prints first: `pre-flight check passed:`, `pre-flight
  /// check FAILED:`, or `pre-flight check passed, with a WARNING: buzzer FAILED (the alarm
  /// rings without it):`.
  public var verdict: String {
    guard passed else { return "pre-flight check FAILED:" }
    let warned = warnings.map(\.name)
    guard !warned.isEmpty else { return "pre-flight check passed:" }
    let them = warned.count == 1 ? "it" : "them"
    return "pre-flight check passed, with a WARNING: \(warned.joined(separator: ", ")) FAILED "
      + "(the alarm rings without \(them); fix before relying on \(them)):"
  }
}
