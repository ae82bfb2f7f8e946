import Testing

@testable import PuckCore

@Suite struct DockConfigParsingTests {
  /// Parses `text` expecting a `ConfigError`, and returns it.
  func error(_ text: String) -> ConfigError? {
    do {
      _ = try DockConfig.parse(text, file: "puckd.conf")
      return nil
    } catch {
      return error
    }
  }

  @Test func fullFileWithEveryKey() throws {
    let text = """
      # every key, none at its default
      [reader]
      device = pn532_uart:/dev/serial0

      [audio]
      device = plughw:CARD=Headphones
      sound = /usr/share/sounds/puck/rooster.wav
      start_volume = 45%
      ramp = 1min 30s

      [buzzer]
      chip = gpiochip4
      line = GPIO18
      active_low = yes
      on = 250ms
      off = 1s

      [button]
      chip = /dev/gpiochip1
      line = 5
      active_low = off

      [led]
      chip = gpiochip2
      line = 6
      active_low = true

      [enforcement]
      retry_delay = 5min
      ring_timeout = 1h
      missed_grace = 0
      """
    let config = try DockConfig.parse(text, file: "puckd.conf")
    #expect(config.reader.device == .connstring("pn532_uart:/dev/serial0"))
    #expect(
      config.audio
        == AudioSettings(
          device: "plughw:CARD=Headphones", sound: "/usr/share/sounds/puck/rooster.wav",
          startVolumePercent: 45, ramp: .seconds(90)))
    #expect(
      config.buzzer
        == BuzzerSettings(
          output: GPIOLineSettings(chip: "gpiochip4", line: .name("GPIO18"), activeLow: true),
          on: .milliseconds(250), off: .seconds(1)))
    #expect(config.button == GPIOLineSettings(chip: "/dev/gpiochip1", line: .offset(5), activeLow: false))
    #expect(config.led == GPIOLineSettings(chip: "gpiochip2", line: .offset(6), activeLow: true))
    #expect(
      config.enforcement
        == EnforcementSettings(retryDelay: .seconds(300), ringTimeout: .seconds(3600), missedGrace: .zero))
  }

  @Test(
    "check_before and awake_check: defaults (10 min, off), values, and out-of-range errors with file:line")
  func checkKeys() throws {
    let config = try DockConfig.parse(
      "[enforcement]\ncheck_before = 30min\nawake_check = 5min\n", file: "puckd.conf")
    #expect(config.enforcement.checkBefore == .seconds(1800))
    #expect(config.enforcement.awakeCheck == .seconds(300))
    #expect(DockConfig.defaults.enforcement.checkBefore == .seconds(600))
    #expect(DockConfig.defaults.enforcement.awakeCheck == .zero, "off unless asked for")
    #expect(error("[enforcement]\ncheck_before = 10s\n")?.description.contains("puckd.conf:2:") == true)
    #expect(error("[enforcement]\nawake_check = 3h\n")?.description.contains("puckd.conf:2:") == true)
  }

  @Test(
    "[reader] poll_interval: the default, a value in milliseconds, and out-of-range errors with file:line")
  func pollInterval() throws {
    #expect(DockConfig.defaults.reader.pollInterval == ReaderSettings.defaultPollInterval)
    let config = try DockConfig.parse(
      "[reader]\ndevice = acr122_usb\npoll_interval = 50ms\n", file: "puckd.conf")
    #expect(config.reader.pollInterval == .milliseconds(50))
    #expect(error("[reader]\npoll_interval = 5ms\n")?.description.contains("puckd.conf:2:") == true)
    #expect(error("[reader]\npoll_interval = 2s\n")?.description.contains("puckd.conf:2:") == true)
  }

  @Test func adaptiveBypassKeys() throws {
    let config = try DockConfig.parse(
      "[audio]\nvolume_step = 15%\n[enforcement]\nretry_shrink = 1min\nretry_floor = 30s\n",
      file: "puckd.conf")
    #expect(config.audio.volumeStepPercent == 15)
    #expect(config.enforcement.retryShrink == .seconds(60))
    #expect(config.enforcement.retryFloor == .seconds(30))
    #expect(DockConfig.defaults.enforcement.retryShrink == .zero, "off unless asked for")
    #expect(DockConfig.defaults.audio.volumeStepPercent == 0)
    #expect(error("[enforcement]\nretry_floor = 2s\n")?.description.contains("puckd.conf:2:") == true)
    #expect(error("[enforcement]\nretry_shrink = 2h\n")?.description.contains("puckd.conf:2:") == true)
    #expect(error("[audio]\nvolume_step = 150%\n")?.description.contains("puckd.conf:2:") == true)
  }

  @Test("min_mixer_volume: 70 % unless set, 0 % to 100 %")
  func minMixerVolume() throws {
    #expect(DockConfig.defaults.audio.minMixerVolumePercent == 70)
    let config = try DockConfig.parse("[audio]\nmin_mixer_volume = 85%\n", file: "puckd.conf")
    #expect(config.audio.minMixerVolumePercent == 85)
    #expect(
      try DockConfig.parse("[audio]\nmin_mixer_volume = 0%\n", file: "puckd.conf").audio.minMixerVolumePercent
        == 0)
    #expect(error("[audio]\nmin_mixer_volume = 101%\n")?.description.contains("puckd.conf:2:") == true)
    #expect(error("[audio]\nmin_mixer_volume = -5%\n")?.description.contains("puckd.conf:2:") == true)
  }

  @Test func emptyFileAndMissingSectionsMeanDefaults() throws {
    #expect(try DockConfig.parse("", file: "puckd.conf") == DockConfig.defaults)
    let partial = try DockConfig.parse("[audio]\nstart_volume = 50%\n", file: "puckd.conf")
    var expected = DockConfig.defaults
    expected.audio.startVolumePercent = 50
    #expect(partial == expected)
    #expect(partial.buzzer == nil && partial.button == nil && partial.led == nil)
    #expect(partial.reader.device == .auto)
    #expect(partial.enforcement.retryDelay == .seconds(60))
  }

  @Test func documentedDefaults() {
    let config = DockConfig.defaults
    #expect(config.reader.device == .auto)
    #expect(
      config.audio == AudioSettings(device: "default", sound: nil, startVolumePercent: 30, ramp: .seconds(60))
    )
    #expect(config.enforcement.retryDelay == .seconds(60))
    #expect(config.enforcement.ringTimeout == .seconds(600))
    #expect(config.enforcement.missedGrace == .seconds(1800))
  }

  @Test func presentSectionsWithoutKeysFitThePartWithDefaults() throws {
    let config = try DockConfig.parse("[buzzer]\n[button]\n[led]\n", file: "puckd.conf")
    #expect(
      config.buzzer
        == BuzzerSettings(
          output: GPIOLineSettings(chip: "gpiochip0", line: .offset(22), activeLow: false),
          on: .milliseconds(500), off: .milliseconds(500)))
    #expect(config.button == GPIOLineSettings(chip: "gpiochip0", line: .offset(17), activeLow: true))
    #expect(config.led == GPIOLineSettings(chip: "gpiochip0", line: .offset(27), activeLow: false))
  }

  @Test func commentsBlankLinesAndSpacing() throws {
    let text = """

      # a comment
      ; another comment
         # an indented comment
      [enforcement]   # trailing comment on a header

      retry_delay=2min
        ring_timeout   =   15min   ; trailing comment
      [reader]
      device = pn532_uart:/dev/tty#1\r
      """
    let config = try DockConfig.parse(text, file: "puckd.conf")
    #expect(config.enforcement.retryDelay == .seconds(120))
    #expect(config.enforcement.ringTimeout == .seconds(900))
    #expect(config.reader.device == .connstring("pn532_uart:/dev/tty#1"))
  }

  @Test func readerSpecialValues() throws {
    #expect(try DockConfig.parse("[reader]\ndevice = simulated", file: "f").reader.device == .simulated)
    #expect(try DockConfig.parse("[reader]\ndevice = auto", file: "f").reader.device == .auto)
  }

  @Test func emptySoundMeansBuiltInTone() throws {
    #expect(try DockConfig.parse("[audio]\nsound =\n", file: "f").audio.sound == nil)
  }

  @Test func unknownSection() {
    let error = error("[reader]\ndevice = auto\n\n[sound]\nfile = x\n")
    #expect(error == ConfigError(file: "puckd.conf", line: 4, reason: .unknownSection("sound")))
    #expect(
      error?.description
        == "puckd.conf:4: unknown section [sound]; the sections are [reader], [audio], [buzzer], "
        + "[button], [led], [enforcement], [mqtt], [homeassistant], [web]")
  }

  @Test func unknownKey() {
    let error = error("[audio]\nstart_volume = 30%\nvolume = 80%\n")
    #expect(
      error == ConfigError(file: "puckd.conf", line: 3, reason: .unknownKey(section: "audio", key: "volume")))
    #expect(
      error?.description
        == "puckd.conf:3: unknown key 'volume' in [audio]; the keys there are device, sound, start_volume, ramp, "
        + "volume_step, min_mixer_volume")
  }

  @Test func keysAreCaseSensitive() {
    #expect(error("[enforcement]\nRetry_Delay = 60s")?.line == 2)
    #expect(error("[Enforcement]\n")?.reason == .unknownSection("Enforcement"))
  }

  @Test func badDuration() {
    let error = error("[audio]\nramp = 10 parsecs\n")
    #expect(error?.line == 2)
    #expect(error?.reason == .badValue(key: "ramp", value: "10 parsecs", problem: .notADuration))
    #expect(
      error?.description
        == "puckd.conf:2: ramp = 10 parsecs is not a duration: expected a whole number with a unit, "
        + "like 500ms, 60s, 10min, 1h or 1min 30s")
    for bad in ["1.5s", "-5s", "s", "5s x", "ms500", "99999999999999999999h"] {
      #expect(
        self.error("[audio]\nramp = \(bad)")?.reason
          == .badValue(key: "ramp", value: bad, problem: .notADuration))
    }
  }

  @Test func retryDelayBelowMinimum() {
    let text = """
      [enforcement]
      # the shortest retry that still gets someone out of bed
      ring_timeout = 10min

      retry_delay = 4s
      """
    let error = error(text)
    #expect(error?.line == 5)
    #expect(error?.reason == .badValue(key: "retry_delay", value: "4s", problem: .belowMinimum("5s")))
    #expect(error?.description == "puckd.conf:5: retry_delay = 4s is below the minimum 5s")
  }

  @Test func retryDelayAboveMaximum() {
    let error = error("[enforcement]\nretry_delay = 31min\n")
    #expect(error?.line == 2)
    #expect(error?.description == "puckd.conf:2: retry_delay = 31min is above the maximum 30min")
  }

  @Test func retryDelayBoundsAreInclusive() throws {
    #expect(
      try DockConfig.parse("[enforcement]\nretry_delay = 5s", file: "f").enforcement.retryDelay == .seconds(5)
    )
    #expect(
      try DockConfig.parse("[enforcement]\nretry_delay = 30min", file: "f").enforcement.retryDelay
        == .seconds(1800))
    #expect(
      try DockConfig.parse("[enforcement]\nretry_delay = 5000ms", file: "f").enforcement.retryDelay
        == .seconds(5))
  }

  @Test func badPercentage() {
    #expect(
      error("[audio]\nstart_volume = loud")?.reason
        == .badValue(key: "start_volume", value: "loud", problem: .notAPercentage))
    let over = error("[audio]\ndevice = default\nstart_volume = 130%")
    #expect(over?.line == 3)
    #expect(over?.description == "puckd.conf:3: start_volume = 130% is above the maximum 100%")
    #expect(error("[audio]\nstart_volume = -5%")?.reason.description.contains("is not a volume") == true)
    #expect(error("[audio]\nstart_volume = 30.5%")?.line == 2)
  }

  @Test func percentageBounds() throws {
    #expect(try DockConfig.parse("[audio]\nstart_volume = 0%", file: "f").audio.startVolumePercent == 0)
    #expect(try DockConfig.parse("[audio]\nstart_volume = 100%", file: "f").audio.startVolumePercent == 100)
    #expect(try DockConfig.parse("[audio]\nstart_volume = 42", file: "f").audio.startVolumePercent == 42)
  }

  @Test func badBoolean() {
    let error = error("[button]\nline = 17\nactive_low = maybe\n")
    #expect(error?.line == 3)
    #expect(error?.reason == .badValue(key: "active_low", value: "maybe", problem: .notABoolean))
    #expect(
      error?.description
        == "puckd.conf:3: active_low = maybe is not yes or no: expected yes or no (also true/false, on/off, 1/0)"
    )
  }

  @Test func booleanSpellings() throws {
    for (word, value) in [
      ("yes", true), ("no", false), ("true", true), ("false", false), ("on", true), ("off", false),
      ("1", true), ("0", false), ("YES", true),
    ] {
      #expect(try DockConfig.parse("[led]\nactive_low = \(word)", file: "f").led?.activeLow == value)
    }
  }

  @Test func duplicateKey() {
    let error = error("[enforcement]\nretry_delay = 60s\nring_timeout = 10min\n\nretry_delay = 90s\n")
    #expect(
      error
        == ConfigError(
          file: "puckd.conf", line: 5,
          reason: .duplicateKey(section: "enforcement", key: "retry_delay", firstLine: 2)))
    #expect(
      error?.description
        == "puckd.conf:5: retry_delay in [enforcement] is already set on line 2; keep only one")
  }

  @Test func sameKeyInDifferentSectionsIsNotADuplicate() throws {
    let config = try DockConfig.parse("[reader]\ndevice = auto\n[audio]\ndevice = pulse\n", file: "f")
    #expect(config.audio.device == "pulse")
  }

  @Test func keyBeforeAnySection() {
    let error = error("# top\n\nretry_delay = 60s\n[enforcement]\n")
    #expect(error == ConfigError(file: "puckd.conf", line: 3, reason: .keyOutsideSection(key: "retry_delay")))
    #expect(
      error?.description
        == "puckd.conf:3: retry_delay comes before any [section] header; put it under its section like [enforcement]"
    )
  }

  @Test func lineWithoutEquals() {
    let error = error("[audio]\nramp 60s\n")
    #expect(error == ConfigError(file: "puckd.conf", line: 2, reason: .malformedLine("ramp 60s")))
    #expect(
      error?.description
        == "puckd.conf:2: 'ramp 60s' is not a setting: expected 'key = value', a [section] header or a # comment"
    )
  }

  @Test func otherMalformedLines() {
    #expect(error("[audio\n")?.reason == .malformedLine("[audio"))
    #expect(error("[audio]\n= 60s\n")?.line == 2)
    #expect(error("[]\n")?.line == 1)
  }

  @Test func badLineAndPathValues() {
    #expect(error("[buzzer]\nline = -3")?.reason == .badValue(key: "line", value: "-3", problem: .notALine))
    #expect(error("[buzzer]\nline = 99999999999")?.reason.description.contains("not a GPIO line") == true)
    #expect(
      error("[audio]\nsound = alarm.wav")?.reason
        == .badValue(key: "sound", value: "alarm.wav", problem: .notAnAbsolutePath))
    #expect(
      error("[enforcement]\nretry_delay =")?.description.hasPrefix("puckd.conf:2: retry_delay has no value")
        == true)
  }

  @Test func buzzerBeatLimits() {
    #expect(error("[buzzer]\non = 5ms")?.description == "puckd.conf:2: on = 5ms is below the minimum 10ms")
    #expect(error("[buzzer]\noff = 11s")?.description == "puckd.conf:2: off = 11s is above the maximum 10s")
  }

  @Test("the network bypass keys: off by default, bounded, and parsed")
  func networkBypassKeys() throws {
    #expect(DockConfig().homeAssistant.bypass == .off)
    let config = try DockConfig.parse(
      "[homeassistant]\nbypass_button = yes\nbypass_after = 1min\nbypass_limit = 2\n", file: "puckd.conf")
    #expect(
      config.homeAssistant.bypass == NetworkBypassPolicy(enabled: true, minimumRing: .seconds(60), limit: 2))
    #expect(
      error("[homeassistant]\nbypass_limit = 0")?.description
        == "puckd.conf:2: bypass_limit = 0 is below the minimum 1")
    #expect(
      error("[homeassistant]\nbypass_limit = 11")?.description
        == "puckd.conf:2: bypass_limit = 11 is above the maximum 10")
    #expect(error("[homeassistant]\nbypass_limit = one")?.description.contains("is not a number") == true)
    #expect(error("[homeassistant]\nbypass_after = 31min")?.description.contains("above the maximum") == true)
  }

  @Test("[web]: off, every address, port 8469 by default; an address is all or an IP literal")
  func webKeys() throws {
    #expect(DockConfig().web.enabled == false)
    #expect(DockConfig().web.address == .all)
    #expect(DockConfig().web.port == 8469)
    #expect(DockConfig().web.usesTLS == false)
    let config = try DockConfig.parse(
      "[web]\nenabled = yes\naddress = [fd00::20]\nport = 8443\ncertificate = /etc/puckalarm/web.pem\n"
        + "key = /etc/puckalarm/web-key.pem\n", file: "puckd.conf")
    #expect(config.web.enabled && config.web.port == 8443 && config.web.usesTLS)
    #expect(config.web.address == .ipv6("fd00::20"))
    for good in ["127.0.0.1", "192.168.1.20", "0.0.0.0", "255.255.255.255"] {
      #expect(ListenAddress(parsing: good) == .ipv4(good), "\(good)")
    }
    for good in [
      "::1", "::", "fe80::1", "2001:db8::8:800:200c:417a", "1:2:3:4:5:6:7:8", "::ffff:192.0.2.1", "1::",
    ] {
      #expect(ListenAddress(parsing: good) == .ipv6(good), "\(good)")
    }
    for bad in [
      "", "dock.local", "256.1.1.1", "1.2.3", "01.2.3.4", "1.2.3.4.5", "1:2:3:4:5:6:7:8:9", "1::2::3",
      "12345::",
      "::g", "1:2:3:4:5:6:7", "fe80::1%eth0", "[::1", "all ",
    ] {
      #expect(ListenAddress(parsing: bad) == nil, "\(bad)")
    }
    #expect(
      error("[web]\naddress = dock.local")?.description
        == "puckd.conf:2: address = dock.local is not an address: expected all, or an IP address of this dock"
        + " like 192.168.1.20 or ::1")
    #expect(error("[web]\nport = 0")?.description.contains("is not a port") == true)
    #expect(error("[web]\ncertificate = web.pem")?.description.contains("is not an absolute path") == true)
    // hostnames: names by spaces or commas, kept in lower case without a final dot.
    #expect(DockConfig().web.hostnames.isEmpty)
    let named = try DockConfig.parse(
      "[web]\nhostnames = Puck.LAN, puck.fritz.box.  dock-1\n", file: "puckd.conf")
    #expect(named.web.hostnames == ["puck.lan", "puck.fritz.box", "dock-1"])
    for bad in ["puck_lan", "-puck.lan", "puck..lan", "puck.lan/x", "*.lan", "http://puck.lan", "pück.lan"] {
      #expect(
        error("[web]\nhostnames = \(bad)")?.description
          == "puckd.conf:2: hostnames = \(bad) is not a list of host names: expected host names separated by"
          + " spaces, like puck.lan puck.fritz.box (letters, digits, - and .)", "\(bad)")
    }
  }

  @Test("pre_alarm: 30 min by default, 1 s to 12 h")
  func preAlarmKey() throws {
    #expect(DockConfig().homeAssistant.preAlarm == .seconds(1800))
    let config = try DockConfig.parse("[homeassistant]\npre_alarm = 45min\n", file: "puckd.conf")
    #expect(config.homeAssistant.preAlarm == .seconds(2700))
    #expect(error("[homeassistant]\npre_alarm = 0s")?.description.contains("below the minimum 1s") == true)
    #expect(error("[homeassistant]\npre_alarm = 13h")?.description.contains("above the maximum") == true)
  }

  @Test("the broker address printed for a node: a loopback host becomes a placeholder to fill in")
  func brokerAddressForTheNode() {
    var mqtt = MQTTSettings()
    #expect(mqtt.isLoopbackHost)
    #expect(mqtt.addressForNode == "DOCK-ADDRESS:1883")
    for host in ["localhost", "::1", "127.0.1.1"] {
      mqtt.host = host
      #expect(mqtt.isLoopbackHost, "\(host)")
    }
    mqtt.host = "192.168.1.10"
    mqtt.port = 8883
    #expect(!mqtt.isLoopbackHost)
    #expect(mqtt.addressForNode == "192.168.1.10:8883")
  }
}
