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
}

extension DeviceHealth {
  /// The health of `device`.
  public init(_ device: DockDevice, state: State, detail: String) {
    self.init(name: device.rawValue, state: state, detail: detail)
  }

  /// The device this is about; nil for a name this build does not know (a newer puckd).
  public var device: DockDevice? { DockDevice(rawValue: name) }
}
