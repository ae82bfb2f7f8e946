/// Every setting of `puckd.conf` (docs/DESIGN.md D10), typed, with the documented defaults.
///
/// Every key is optional; `DockConfig()` is what a missing or empty file means. The keys that
/// fill these fields, their bounds and docs are declared in `DockConfig.sections`; a field no key
/// fills fails `ConfigKeyTableTests`.
public struct DockConfig: Hashable, Sendable {
  /// `[reader]`: which NFC reader to poll.
  public var reader: ReaderSettings
  /// `[audio]`: where and how the alarm sound plays.
  public var audio: AudioSettings
  /// `[buzzer]`: nil when the section is absent (no buzzer fitted).
  public var buzzer: BuzzerSettings?
  /// `[button]`: nil when the section is absent (no dock button); a press is a bypass.
  public var button: GPIOLineSettings?
  /// `[led]`: nil when the section is absent (no status LED).
  public var led: GPIOLineSettings?
  /// `[enforcement]`: the wake guard's timings.
  public var enforcement: EnforcementSettings
  /// `[mqtt]`: the broker of the remote readers.
  public var mqtt = MQTTSettings()
  /// `[homeassistant]`: Home Assistant through MQTT discovery (off by default).
  public var homeAssistant = HomeAssistantSettings()
  /// `[web]`: the web app, `puck-web` (off by default). puckd itself never reads it.
  public var web = WebSettings()

  /// A configuration; every argument defaults to what a missing file means.
  public init(
    reader: ReaderSettings = ReaderSettings(), audio: AudioSettings = AudioSettings(),
    buzzer: BuzzerSettings? = nil, button: GPIOLineSettings? = nil, led: GPIOLineSettings? = nil,
    enforcement: EnforcementSettings = EnforcementSettings()
  ) {
    self.reader = reader
    self.audio = audio
    self.buzzer = buzzer
    self.button = button
    self.led = led
    self.enforcement = enforcement
  }

  /// What a missing or empty file means: auto reader, default ALSA device, built-in tone,
  /// no buzzer, button or LED, and the default enforcement timings.
  public static let defaults = DockConfig()
}

/// `[reader]` settings.
public struct ReaderSettings: Hashable, Sendable {
  /// `device`: which reader libnfc opens.
  public var device: ReaderDevice
  /// `poll_interval`: the pause between two looks for a tag while a wake-up is open or a
  /// pairing waits (each look is one bounded select). It sets how soon a presented puck is
  /// seen, against the CPU the polling costs (docs/BENCHMARKS.md "Detection").
  public var pollInterval: Duration

  /// The accepted `poll_interval`s.
  public static let pollIntervalRange: ClosedRange<Duration> = .milliseconds(10) ... .seconds(1)
  /// The default `poll_interval`.
  public static let defaultPollInterval: Duration = .milliseconds(30)

  /// Reader settings; `auto` by default.
  public init(device: ReaderDevice = .auto, pollInterval: Duration = Self.defaultPollInterval) {
    self.device = device
    self.pollInterval = pollInterval
  }
}

/// The `[reader] device` value.
public enum ReaderDevice: Hashable, Sendable, CustomStringConvertible {
  /// `auto`: libnfc's default device.
  case auto
  /// `simulated`: no reader; scans arrive through `puckctl scan`.
  case simulated
  /// `none`: no reader on the dock itself; only remote readers (`puckctl reader add`).
  case none
  /// A libnfc connstring such as `pn532_uart:/dev/serial0` or `acr122_usb`.
  case connstring(String)

  /// The value as written in the config file.
  public var description: String {
    switch self {
    case .auto: return "auto"
    case .simulated: return "simulated"
    case .none: return "none"
    case .connstring(let text): return text
    }
  }
}

/// `[audio]` settings.
public struct AudioSettings: Hashable, Sendable {
  /// `device`: the ALSA PCM name (`default`, `plughw:CARD=Headphones`, `pulse`, ...).
  public var device: String
  /// `sound`: an absolute path to a sound file, or nil for the built-in tone.
  public var sound: String?
  /// `start_volume`: the volume the ring starts at, in percent (0...100).
  public var startVolumePercent: Int
  /// `ramp`: the time from the start volume to full volume.
  public var ramp: Duration
  /// `volume_step`: how much higher each ring of a wake-up starts than the one before it, after
  /// every bypass, in percent (0: every ring starts at `start_volume`).
  public var volumeStepPercent: Int = 0
  /// `min_mixer_volume`: while it rings, the card's playback volumes are held at least this
  /// high and its playback switches on, in percent of each control's range (docs/DESIGN.md D16).
  public var minMixerVolumePercent: Int = 70

  /// Audio settings; defaults: ALSA `default`, built-in tone, 30 %, 60 s ramp.
  public init(
    device: String = "default", sound: String? = nil, startVolumePercent: Int = 30,
    ramp: Duration = .seconds(60)
  ) {
    self.device = device
    self.sound = sound
    self.startVolumePercent = startVolumePercent
    self.ramp = ramp
  }
}

/// Which GPIO line a `line = ` value names.
public enum GPIOLine: Hashable, Sendable, CustomStringConvertible {
  /// The line's offset on its chip (`22`).
  case offset(UInt32)
  /// The line's name as the chip's driver labels it (`GPIO22`).
  case name(String)

  /// The value as written in the config file.
  public var description: String {
    switch self {
    case .offset(let offset): return String(offset)
    case .name(let name): return name
    }
  }
}

/// One GPIO line: `chip`, `line` and `active_low` of `[buzzer]`, `[button]` or `[led]`.
public struct GPIOLineSettings: Hashable, Sendable {
  /// `chip`: the GPIO chip (`gpiochip0`, or a path like `/dev/gpiochip0`).
  public var chip: String
  /// `line`: the line's offset or name.
  public var line: GPIOLine
  /// `active_low`: whether the line is on when it reads or drives low.
  public var activeLow: Bool

  /// A line; the chip defaults to `gpiochip0`.
  public init(chip: String = "gpiochip0", line: GPIOLine, activeLow: Bool) {
    self.chip = chip
    self.line = line
    self.activeLow = activeLow
  }

  /// What `[button]` with no keys means: `gpiochip0` line 17, active low (a button to ground
  /// with the pull-up that Raspberry Pi boards enable on that line).
  public static let defaultButton = GPIOLineSettings(line: .offset(17), activeLow: true)
  /// What `[led]` with no keys means: `gpiochip0` line 27, active high.
  public static let defaultLED = GPIOLineSettings(line: .offset(27), activeLow: false)
}

/// `[buzzer]` settings: the line and the on/off beat it is driven with.
public struct BuzzerSettings: Hashable, Sendable {
  /// The output line.
  public var output: GPIOLineSettings
  /// `on`: how long each beep lasts.
  public var on: Duration
  /// `off`: the pause between beeps.
  public var off: Duration

  /// Buzzer settings; defaults: `gpiochip0` line 22, active high, 500 ms on, 500 ms off.
  /// Line 22, not 18: GPIO18 is the bit clock of an I²S amplifier (hardware/gpio.md).
  public init(
    output: GPIOLineSettings = GPIOLineSettings(line: .offset(22), activeLow: false),
    on: Duration = .milliseconds(500), off: Duration = .milliseconds(500)
  ) {
    self.output = output
    self.on = on
    self.off = off
  }
}

/// `[enforcement]` settings: the wake guard's timings (docs/DESIGN.md W3, W4).
public struct EnforcementSettings: Hashable, Sendable {
  /// `retry_delay`: how long after a bypass the alarm rings again.
  public var retryDelay: Duration
  /// `ring_timeout`: a ring nobody touches is silenced after this and counted as a bypass.
  public var ringTimeout: Duration
  /// `missed_grace`: how late an alarm may still ring after downtime.
  public var missedGrace: Duration
  /// `retry_shrink`: each bypass after the first in one wake-up shortens the next retry delay by
  /// this much (0: every retry waits `retry_delay`).
  public var retryShrink: Duration = .zero
  /// `retry_floor`: the shortest a retry delay gets by shrinking.
  public var retryFloor: Duration = .seconds(20)
  /// `override_delay`: how long `puckctl override` waits, with the ring going on, before it
  /// closes the wake-ups: the way out is not free.
  public var overrideDelay: Duration = .seconds(120)
  /// `check_before`: how long before each alarm the pre-flight check runs, so a failure is
  /// noticed while someone can still fix it (docs/DESIGN.md R5).
  public var checkBefore: Duration = .seconds(600)
  /// `awake_check`: this long after a wake-up ended with a scan, the dock asks for the button
  /// (or `puckctl awake`) within a minute, and opens the wake-up again without an answer; 0s
  /// (the default) never asks (docs/DESIGN.md W17).
  public var awakeCheck: Duration = .zero
  /// `stop_after`: how long a ring must have been heard before a stop through the control
  /// socket (`puckctl stop`, from a shell anywhere) counts; the dock button counts at once
  /// (docs/DESIGN.md W18).
  public var stopAfter: Duration = .seconds(20)
  /// `lock_before`: how long before each occurrence nothing may remove or delay it, root
  /// included; a scan of the puck inside it ends the occurrence early (docs/DESIGN.md S12).
  /// Zero turns the lock off.
  public var lockBefore: Duration = .seconds(3600)

  /// Enforcement settings; defaults: 60 s retry delay, 10 min ring timeout, 30 min grace.
  public init(
    retryDelay: Duration = .seconds(60), ringTimeout: Duration = .seconds(10 * 60),
    missedGrace: Duration = .seconds(30 * 60)
  ) {
    self.retryDelay = retryDelay
    self.ringTimeout = ringTimeout
    self.missedGrace = missedGrace
  }
}
