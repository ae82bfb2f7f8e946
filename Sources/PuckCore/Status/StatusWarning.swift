/// Something status warns about that does not cost protection: the alarm still rings and only
/// the paired tag ends it, but a part the config names does not work, and the person getting
/// into bed should know before relying on it. `status --json` carries each as an object with a
/// stable `code`, the case's parameters and the line a person reads (`{"code": "part-failed",
/// "device": "buzzer", "detail": "…", "next": "…", "text": "…"}`), so an older `puckctl` can
/// still show a newer daemon's warning. Codes are never renamed or
/// reused (docs/DESIGN.md R2).
public enum StatusWarning: Hashable, Sendable {
  /// A part the config names failed while something else can still ring: a buzzer, button or
  /// LED that cannot be opened or driven, or the audio beside a working buzzer. Code
  /// `part-failed`.
  case partFailed(device: DockDevice, detail: String, next: String?)
  /// A code this build does not know, from a newer puckd, with the line it sent.
  case unrecognized(code: String, text: String?, next: String?)

  /// The warnings `devices` call for, in their order: every GPIO part in `fault`, and the
  /// audio in `fault` while a buzzer works (with no working buzzer that is the reason
  /// `nothing-can-ring` instead). An `absent` part is one the config does not name: no warning.
  public static func warnings(for devices: [DeviceHealth]) -> [StatusWarning] {
    let buzzerWorks = devices.contains { $0.device == .buzzer && $0.state == .ok }
    return devices.compactMap { health in
      guard health.state == .fault, let device = health.device else { return nil }
      guard device.isGPIOPart || (device == .audio && buzzerWorks) else { return nil }
      return .partFailed(device: device, detail: health.detail, next: health.next)
    }
  }

  /// The stable code `status --json` carries.
  public var code: String {
    switch self {
    case .partFailed: "part-failed"
    case .unrecognized(let code, _, _): code
    }
  }

  /// What goes on working without the part, for the line a person reads.
  private static func consequence(of device: DockDevice) -> String {
    switch device {
    case .buzzer: "the alarm rings on the audio alone"
    case .button: "a press does not silence the ring; puckctl stop still does"
    case .led: "the dock shows no light"
    case .audio: "only the buzzer rings"
    case .reader: "no scan ends a wake-up"
    }
  }

  /// The line `puckctl status` shows at the top, under the verdict: the part, that it FAILED,
  /// what still works, and why it failed. The next step is `next`, shown below it.
  public var text: String {
    switch self {
    case .partFailed(let device, let detail, _):
      "\(device == .led ? "LED" : device.rawValue) FAILED (\(Self.consequence(of: device))): \(detail)"
    case .unrecognized(let code, let text, _): text ?? "warning (\(code))"
    }
  }

  /// What to do next, when the daemon could say.
  public var next: String? {
    switch self {
    case .partFailed(_, _, let next), .unrecognized(_, _, let next): next
    }
  }
}

extension StatusWarning: Codable {
  /// `code` plus the case's parameters, flat in one object.
  private enum CodingKeys: String, CodingKey {
    case code, device, detail, next, text
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let code = try container.decode(String.self, forKey: .code)
    let next = try container.decodeIfPresent(String.self, forKey: .next)
    // A newer daemon's warning (or a device this build does not know) must not make the whole
    // status unreadable: it is kept with the daemon's own line.
    guard code == "part-failed",
      let device = DockDevice(rawValue: try container.decodeIfPresent(String.self, forKey: .device) ?? "")
    else {
      self = .unrecognized(
        code: code, text: try container.decodeIfPresent(String.self, forKey: .text), next: next)
      return
    }
    self = .partFailed(device: device, detail: try container.decode(String.self, forKey: .detail), next: next)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(code, forKey: .code)
    if case .partFailed(let device, let detail, _) = self {
      try container.encode(device, forKey: .device)
      try container.encode(detail, forKey: .detail)
    }
    try container.encodeIfPresent(next, forKey: .next)
    try container.encode(text, forKey: .text)
  }
}
