/// Which ALSA PCM to play on: a PCM name from the system's ALSA configuration (`default`,
/// `plughw:CARD=Headphones`, `pulse`, ...), or a name defined by an inline configuration text
/// that is used instead of the system's (tests use a `file` PCM over a `null` slave this way).
public struct ALSADevice: Sendable, Hashable, CustomStringConvertible {
  /// The PCM name passed to `snd_pcm_open`.
  public var name: String
  /// ALSA configuration text in which `name` is defined; nil means the system configuration.
  public var configuration: String?

  /// A PCM by name, from the system configuration unless `configuration` text is given.
  public init(name: String, configuration: String? = nil) {
    self.name = name
    self.configuration = configuration
  }

  /// The PCM name, as logs and status show it.
  public var description: String { name }
}
