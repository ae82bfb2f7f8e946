/// A device of the dock, as status names it. The raw value is the `name` the wire's
/// `DeviceHealth` carries, so `status --json` keeps its strings.
public enum DockDevice: String, Hashable, Sendable, Codable, CaseIterable {
  /// The NFC reader (libnfc or simulated).
  case reader
  /// The ALSA output that plays the alarm sound.
  case audio
  /// The GPIO buzzer.
  case buzzer
  /// The GPIO dock button (a bypass).
  case button
  /// The GPIO status LED.
  case led

  /// A part on a GPIO line that the config names in its own section (`[buzzer]`, `[button]`,
  /// `[led]`): the dock works without it, so its failure is a warning, not a reason against
  /// protection (a buzzer counts again when the audio fails too: `nothing-can-ring`).
  public var isGPIOPart: Bool {
    switch self {
    case .buzzer, .button, .led: true
    case .reader, .audio: false
    }
  }
}

extension DeviceHealth {
  /// The health of `device`; `next` is what to do about a fault.
  public init(_ device: DockDevice, state: State, detail: String, next: String? = nil) {
    self.init(name: device.rawValue, state: state, detail: detail, next: next)
  }

  /// The device this is about; nil for a name this build does not know (a newer puckd).
  public var device: DockDevice? { DockDevice(rawValue: name) }
}
