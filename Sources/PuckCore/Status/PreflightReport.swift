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

  /// One part and what the check found.
  public struct Part: Hashable, Sendable, Codable {
    /// `reader`, `remote kitchen`, `pairing`, `audio`, `sound`, `buzzer`, `clock`, `timer`.
    public var name: String
    public var ok: Bool
    /// What was found, for a person.
    public var detail: String

    public init(_ name: String, ok: Bool, _ detail: String) {
      self.name = name
      self.ok = ok
      self.detail = detail
    }

    /// `reader: ok — pn532_uart:/dev/ttyS0 answers` or `audio: FAILED — cannot open …`.
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

  /// The parts that failed.
  public var failures: [Part] { parts.filter { !$0.ok } }

  /// True when every part passed.
  public var passed: Bool { failures.isEmpty }
}
