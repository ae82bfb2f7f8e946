extension DockConfig {
  /// Every section and key of `puckd.conf`, in the order the documentation lists them. The
  /// parser reads keys through this table alone and refuses any other; `ConfigKeyTableTests`
  /// holds the fields of `DockConfig`, the default file and the man page's key list to it. A
  /// key's default is its field's.
  public static let sections: [ConfigSection] = [
    ConfigSection(
      "reader", doc: "The NFC reader the paired tag is scanned on.",
      keys: [
        ConfigKey(
          "device", \.reader.device, .readerDevice,
          doc: "Which reader to poll: auto (the first reader libnfc finds: one named in"
            + " /etc/nfc/libnfc.conf or /etc/nfc/devices.d, else a USB reader; never a PN532 on UART,"
            + " I2C or SPI, which libnfc probes only with allow_intrusive_scan, off on Debian and to be"
            + " left off on a Pi), simulated (no reader; scans come from puckctl scan), none (only remote"
            + " readers) or a libnfc connstring such as pn532_uart:/dev/serial0 (pn532_uart:/dev/ttyAMA0"
            + " on a Pi 5, whose serial0 is the debug connector), pn532_i2c:/dev/i2c-1 or acr122_usb."),
        ConfigKey(
          "poll_interval", \.reader.pollInterval, .duration(ReaderSettings.pollIntervalRange),
          doc: "How often to look for the tag while a wake-up is open or a pairing waits: shorter sees"
            + " the puck sooner and costs more CPU."),
      ]),
    ConfigSection(
      "audio", doc: "The alarm sound and the ALSA device it plays on.",
      keys: [
        ConfigKey(
          "device", \.audio.device, .text(missing: "an ALSA device name like default"),
          doc: "The ALSA PCM to play on, such as plughw:CARD=Headphones (aplay -L lists them)."),
        ConfigKey(
          "sound", \.audio.sound, .absolutePath,
          doc: "A sound file to play, as an absolute path: WAV, FLAC, Ogg Vorbis, Opus or MP3 of at most"
            + " 5 minutes (it loops), outside /home, /root, /run/user and /tmp, which the service cannot see"
            + " (/usr/local/share/sounds or /etc/puckalarm). Empty: the built-in tone."),
        ConfigKey(
          "start_volume", \.audio.startVolumePercent, .percentage, doc: "The volume the ring starts at."),
        ConfigKey(
          "ramp", \.audio.ramp, .duration(.zero...(.seconds(30 * 60))),
          doc: "How long the volume takes to rise from start_volume to full."),
        ConfigKey(
          "volume_step", \.audio.volumeStepPercent, .percentage,
          doc: "How much louder each ring of a wake-up after a bypass starts than the one before, up to"
            + " full volume (0%: every ring starts at start_volume)."),
        ConfigKey(
          "min_mixer_volume", \.audio.minMixerVolumePercent, .percentage,
          doc: "While the alarm rings, every playback switch of the device's card is turned on and every"
            + " playback volume raised to at least this, every second; they are put back afterwards."),
      ]),
    ConfigSection(
      "buzzer",
      doc: "An active buzzer on a GPIO line, driven on and off while the alarm rings. Without this"
        + " section there is no buzzer; the header alone fits one with the defaults below.",
      fit: { $0.buzzer = $0.buzzer ?? BuzzerSettings() },
      // `\.buzzer!` cannot trap: a key is only read under its header, and the header fits the part.
      keys: [
        ConfigKey(
          "chip", \.buzzer!.output.chip, .text(missing: "a GPIO chip like gpiochip0"),
          doc: "The GPIO chip, as gpiodetect names it."),
        ConfigKey(
          "line", \.buzzer!.output.line, .gpioLine,
          doc: "The line's offset on the chip or, better, its name (gpioinfo lists them, such as"
            + " GPIO22): a name survives chip renumbering. Not GPIO18: an I2S amplifier's bit clock"
            + " uses it."),
        ConfigKey(
          "active_low", \.buzzer!.output.activeLow, .boolean,
          doc: "Whether the buzzer sounds when the line is driven low."),
        ConfigKey("on", \.buzzer!.on, .duration(beat), doc: "How long each beep lasts."),
        ConfigKey("off", \.buzzer!.off, .duration(beat), doc: "The pause between beeps."),
      ]),
    ConfigSection(
      "button",
      doc: "A dock button on a GPIO input: a press stops the ring as a bypass (the alarm comes back"
        + " after retry_delay until the paired tag is scanned). Without this section there is no"
        + " button; the header alone fits one with the defaults below.",
      fit: { $0.button = $0.button ?? .defaultButton },
      keys: [
        ConfigKey(
          "chip", \.button!.chip, .text(missing: "a GPIO chip like gpiochip0"), doc: "The GPIO chip."),
        ConfigKey("line", \.button!.line, .gpioLine, doc: "The line's offset or name."),
        ConfigKey(
          "active_low", \.button!.activeLow, .boolean,
          doc: "Whether a press pulls the line low: yes for a button to ground (the usual wiring, with"
            + " the pull-up Raspberry Pi boards enable on line 17)."),
      ]),
    ConfigSection(
      "led",
      doc: "A status LED on a GPIO output, showing the dock's state. Without this section there is no"
        + " LED; the header alone fits one with the defaults below.",
      fit: { $0.led = $0.led ?? .defaultLED },
      keys: [
        ConfigKey("chip", \.led!.chip, .text(missing: "a GPIO chip like gpiochip0"), doc: "The GPIO chip."),
        ConfigKey("line", \.led!.line, .gpioLine, doc: "The line's offset or name."),
        ConfigKey("active_low", \.led!.activeLow, .boolean, doc: "Whether the LED lights on a low line."),
      ]),
    ConfigSection(
      "enforcement", doc: "The wake guard's timings.",
      keys: [
        ConfigKey(
          "retry_delay", \.enforcement.retryDelay, .duration(.seconds(5)...(.seconds(30 * 60))),
          doc: "How long after a bypass (the button, puckctl stop, a ring timeout) the alarm rings again."),
        ConfigKey(
          "stop_after", \.enforcement.stopAfter, .duration(.seconds(5)...(.seconds(30 * 60))),
          doc: "puckctl stop counts only once the ring has been heard this long, and then silences it for"
            + " at most half as long as it was heard: no script or loop of stops keeps a wake-up quiet."
            + " The dock button stops it at once."),
        ConfigKey(
          "lock_before", \.enforcement.lockBefore, .duration(.zero...(.seconds(12 * 3600))),
          doc: "For this long before each alarm nothing may skip, disable, remove, pause or delay it, not"
            + " even root (adding alarms and making one earlier still work, and a change made in the last"
            + " 2 minutes may be corrected); a scan of a paired puck in that time ends the coming alarm"
            + " before it rings, as \"up before the alarm\". 0s turns the lock off."),
        ConfigKey(
          "ring_timeout", \.enforcement.ringTimeout, .duration(.seconds(60)...(.seconds(2 * 3600))),
          doc: "A ring nobody touches is silenced after this long and counted as a bypass."),
        ConfigKey(
          "missed_grace", \.enforcement.missedGrace, .duration(.zero...(.seconds(12 * 3600))),
          doc: "How late an alarm may still ring when the board was off or puckd down at its time; later"
            + " than this it is recorded as missed."),
        ConfigKey(
          "retry_shrink", \.enforcement.retryShrink, .duration(.zero...(.seconds(30 * 60))),
          doc: "Each bypass after the first in one wake-up shortens the next retry by this much, down to"
            + " retry_floor (0s: every retry waits retry_delay)."),
        ConfigKey(
          "retry_floor", \.enforcement.retryFloor, .duration(.seconds(5)...(.seconds(30 * 60))),
          doc: "The shortest a retry gets by shrinking."),
        ConfigKey(
          "override_delay", \.enforcement.overrideDelay, .duration(.zero...(.seconds(30 * 60))),
          doc: "How long puckctl override waits, with the ring going on, before it closes the wake-ups"
            + " without a scan: the way out should cost something."),
        ConfigKey(
          "check_before", \.enforcement.checkBefore, .duration(.seconds(60)...(.seconds(2 * 3600))),
          doc: "How long before each alarm the pre-flight check runs (reader, pairing, audio, buzzer,"
            + " clock, remote readers, the armed timer); a failure chirps the buzzer and the speaker,"
            + " blinks the LED fast and shows in status."),
        ConfigKey(
          "awake_check", \.enforcement.awakeCheck, .duration(.zero...(.seconds(2 * 3600))),
          doc: "The wake-up check: this long after a wake-up ended with a scan, the dock chirps and"
            + " waits a minute for the dock button (or puckctl awake); without an answer the wake-up"
            + " opens again. 0s never asks."),
      ]),
    ConfigSection(
      "mqtt",
      doc: "The MQTT broker through which remote readers reach this dock; used only once a reader is"
        + " enrolled (puckctl reader add). Each connection takes a new random client ID at each start,"
        + " published nowhere, so no other client of the broker can throw it off by using its ID.",
      keys: [
        ConfigKey(
          "host", \.mqtt.host, .text(missing: "a host name or address like 192.168.1.10"),
          doc: "The broker's host name or address."),
        ConfigKey("port", \.mqtt.port, .port, doc: "1883 for plain MQTT, 8883 for MQTT over TLS."),
        ConfigKey(
          "username", \.mqtt.username, .optionalText, doc: "The dock's broker account; empty: anonymous."),
        ConfigKey(
          "password_file", \.mqtt.passwordFile, .absolutePath,
          doc: "The file holding the account's password, checked as the reader keys are: owned by"
            + " root, mode 0600."),
        ConfigKey(
          "ca_file", \.mqtt.caFile, .absolutePath,
          doc: "The CA certificate that signed the broker's; set, the connection uses TLS."),
        ConfigKey(
          "dock_name", \.mqtt.dockName, .name,
          doc: "This dock's name among the docks a reader serves: 1 to 32 lower-case letters, digits, -"
            + " and _. Empty: the host name."),
      ]),
    ConfigSection(
      "homeassistant",
      doc: "Home Assistant through MQTT discovery, over the [mqtt] broker. Nothing Home Assistant can"
        + " do ends a wake-up.",
      keys: [
        ConfigKey("enabled", \.homeAssistant.enabled, .boolean, doc: "Publish the dock to Home Assistant."),
        ConfigKey(
          "discovery_prefix", \.homeAssistant.discoveryPrefix,
          .text(
            missing: "an MQTT topic prefix without wildcards, like homeassistant",
            isValid: { !$0.contains(where: { "#+ ".contains($0) }) }),
          doc: "Home Assistant's discovery prefix."),
        ConfigKey(
          "bypass_button", \.homeAssistant.bypass.enabled, .boolean,
          doc: "Whether a press of Home Assistant's bypass button, or anything else published on the"
            + " dock's bypass topic, may silence a ring; retained and repeated presses are ignored."),
        ConfigKey(
          "bypass_after", \.homeAssistant.bypass.minimumRing, .duration(.zero...(.seconds(30 * 60))),
          doc: "A press from the network counts only after the ring has been heard this long."),
        ConfigKey(
          "bypass_limit", \.homeAssistant.bypass.limit,
          .number(1...10, missing: "a number of bypasses like 1"),
          doc: "How many presses from the network count in one wake-up."),
        // At least a second: a pre-alarm at the alarm's own instant would be the `fired` event.
        ConfigKey(
          "pre_alarm", \.homeAssistant.preAlarm, .duration(.seconds(1)...(.seconds(12 * 3600))),
          doc: "How long before each alarm the pre_alarm event goes out, for wake-up lights; it only"
            + " tells, it ends nothing."),
      ]),
    ConfigSection(
      "web",
      doc: "The web app, puck-web: the dock from a phone on the home network. It also needs a password"
        + " (sudo puckctl web password) and its unit started (systemctl enable --now puck-web).",
      keys: [
        ConfigKey(
          "enabled", \.web.enabled, .boolean,
          doc: "Serve the web app; while this is no, puck-web exits at once without listening."),
        ConfigKey(
          "address", \.web.address, .listenAddress,
          doc: "Where it listens: all (every IPv4 and IPv6 address of the dock) or one of the dock's"
            + " addresses, such as 192.168.1.20, or 127.0.0.1 behind a reverse proxy."),
        ConfigKey("port", \.web.port, .port, doc: "The TCP port it listens on."),
        ConfigKey(
          "certificate", \.web.certificate, .absolutePath,
          doc: "A PEM certificate (chain) for HTTPS, readable by the puckalarm group; with key set, the"
            + " web app speaks HTTPS only. Empty: plain HTTP."),
        ConfigKey(
          "key", \.web.key, .absolutePath,
          doc: "The certificate's PEM private key, root:puckalarm mode 0640."),
        ConfigKey(
          "hostnames", \.web.hostnames, .hostNames,
          doc: "Names the phone may use for the dock besides its IP address, localhost and its own host"
            + " name (also with .local), separated by spaces, such as the router's name for it:"
            + " puck.fritz.box. Any other name is refused, so no other site can pass for the dock."),
      ]),
  ]

  /// The range a buzzer's `on` and `off` accept.
  private static let beat: ClosedRange<Duration> = .milliseconds(10)...(.seconds(10))

  /// The defaults with every optional part fitted, as a present header without keys fits it:
  /// what each key means when its line is left out.
  static let fittedDefaults = sections.reduce(into: defaults) { config, section in section.fit?(&config) }

  /// The section named `name`, or nil for an unknown one.
  static func section(named name: String) -> ConfigSection? {
    sections.first { $0.name == name }
  }
}
