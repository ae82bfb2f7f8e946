/// A mixer that could not be opened, read or set: the control device it lives on and what
/// alsa-lib said.
public struct MixerFault: Error, Sendable, Equatable, CustomStringConvertible {
  /// The control device, as `snd_ctl_open` names it: `pulse`, `hw:CARD=Headphones`, `hw:0`.
  public let control: String
  /// What alsa-lib said.
  public let error: ALSAError

  public init(control: String, error: ALSAError) {
    self.control = control
    self.error = error
  }

  /// One line for the log and the check.
  public var description: String { "the mixer \(control): \(error)" }
}

/// What reading a device's mixer ahead of an alarm found (`AudioOutput.checkMixer`).
public enum MixerCheck: Sendable, Equatable {
  /// The device has no mixer (a `null` or `file` PCM): nothing to raise, nothing that can
  /// silence it.
  case noMixer
  /// The card's playback controls on `control`; `low` are those muted or below the floor, as
  /// they are now (they are raised when it rings).
  case found(control: String, low: [MixerControl])
  /// The mixer is there but cannot be opened or read, so a ring could not raise it.
  case unreachable(MixerFault)
}

/// What a ring did to the mixer, reported through `AudioEvent.mixer`.
public enum MixerEvent: Sendable, Equatable {
  /// These controls were muted or below the floor and were raised (listed as they were).
  case raised(control: String, [MixerControl])
  /// The controls raised while the mixer was held were put back as they were (listed so).
  case restored(control: String, [MixerControl])
  /// The mixer could not be opened, read or set.
  case failed(MixerFault)
}
