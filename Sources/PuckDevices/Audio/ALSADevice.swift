import CALSA
import Glibc

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

extension ALSADevice {
  /// The playback PCMs the system's ALSA configuration names (`snd_device_name_hint`), as
  /// `aplay -L` lists them: `default`, `pulse`, `plughw:CARD=…,DEV=…` and the like; the ones that
  /// only capture are left out. Empty when ALSA lists nothing (no configuration, no card).
  public static func playbackNames() -> [String] {
    var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
    defer { snd_device_name_free_hint(hints) }
    var names: [String] = []
    var index = 0
    while let hint = hints[index] {
      index += 1
      func text(_ id: String) -> String? {
        guard let value = snd_device_name_get_hint(hint, id) else { return nil }
        defer { free(value) }
        return String(cString: value)
      }
      // IOID is absent for a device that plays and records, "Input" for one that only records.
      guard let name = text("NAME"), text("IOID") != "Input" else { continue }
      names.append(name)
    }
    return names
  }
}
