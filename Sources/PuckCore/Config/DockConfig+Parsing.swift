extension DockConfig {
  /// The sections of `puckd.conf` and their keys, in the order the documentation lists them.
  public static let knownKeys: [(section: String, keys: [String])] = [
    ("reader", ["device", "poll_interval"]),
    ("audio", ["device", "sound", "start_volume", "ramp", "volume_step"]),
    ("buzzer", ["chip", "line", "active_low", "on", "off"]),
    ("button", ["chip", "line", "active_low"]),
    ("led", ["chip", "line", "active_low"]),
    (
      "enforcement",
      [
        "retry_delay", "ring_timeout", "missed_grace", "retry_shrink", "retry_floor", "override_delay",
        "check_before", "awake_check",
      ]
    ),
    ("mqtt", ["host", "port", "username", "password_file", "ca_file", "dock_name"]),
    (
      "homeassistant",
      ["enabled", "discovery_prefix", "bypass_button", "bypass_after", "bypass_limit", "pre_alarm"]
    ),
  ]

  /// The keys a section has, or none for an unknown section.
  public static func keys(of section: String) -> [String] {
    knownKeys.first { $0.section == section }?.keys ?? []
  }

  /// Parses the text of `puckd.conf` (docs/DESIGN.md D10): `[section]` headers, `key = value` lines,
  /// blank lines and comments. A comment is a line starting with `#` or `;`, or the rest of a
  /// line from a `#` or `;` that follows a space or tab (as in `ramp = 60s  # to full volume`).
  /// Sections and keys are case-sensitive, as in systemd. The first problem found is thrown;
  /// `file` is only used to name the file in that error.
  public static func parse(_ text: String, file: String) throws(ConfigError) -> DockConfig {
    var parser = ConfigParser(file: file)
    for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
      .enumerated()
    {
      try parser.consume(String(rawLine), lineNumber: index + 1)
    }
    return parser.config
  }
}

/// The state of one pass over a config file.
private struct ConfigParser {
  let file: String
  var config = DockConfig()
  var section: String?
  /// Where each `section.key` was first set, to report duplicates.
  var firstSet: [String: Int] = [:]

  init(file: String) {
    self.file = file
  }

  mutating func consume(_ rawLine: String, lineNumber: Int) throws(ConfigError) {
    var line = rawLine
    if lineNumber == 1, line.hasPrefix("\u{FEFF}") { line.removeFirst() }
    line = Self.strippingComment(line).trimmingWhitespace()
    if line.isEmpty { return }

    func fail(_ reason: ConfigError.Reason) -> ConfigError {
      ConfigError(file: file, line: lineNumber, reason: reason)
    }

    if line.hasPrefix("[") {
      guard line.hasSuffix("]"), line.count >= 3 else { throw fail(.malformedLine(line)) }
      let name = String(line.dropFirst().dropLast()).trimmingWhitespace()
      guard DockConfig.knownKeys.contains(where: { $0.section == name }) else {
        throw fail(.unknownSection(name))
      }
      section = name
      // The presence of these sections is what fits the part; their keys refine it.
      switch name {
      case "buzzer": config.buzzer = config.buzzer ?? BuzzerSettings()
      case "button": config.button = config.button ?? .defaultButton
      case "led": config.led = config.led ?? .defaultLED
      default: break
      }
      return
    }

    guard let equals = line.firstIndex(of: "=") else { throw fail(.malformedLine(line)) }
    let key = String(line[..<equals]).trimmingWhitespace()
    let value = String(line[line.index(after: equals)...]).trimmingWhitespace()
    guard !key.isEmpty, !key.contains(where: { $0 == " " || $0 == "\t" }) else {
      throw fail(.malformedLine(line))
    }
    guard let section else { throw fail(.keyOutsideSection(key: key)) }
    guard DockConfig.keys(of: section).contains(key) else {
      throw fail(.unknownKey(section: section, key: key))
    }
    let qualified = "\(section).\(key)"
    if let firstLine = firstSet[qualified] {
      throw fail(.duplicateKey(section: section, key: key, firstLine: firstLine))
    }
    firstSet[qualified] = lineNumber
    do throws(ValueProblem) {
      try apply(section: section, key: key, value: value)
    } catch {
      throw fail(.badValue(key: key, value: value, problem: error))
    }
  }

  private mutating func apply(section: String, key: String, value: String) throws(ValueProblem) {
    switch (section, key) {
    case ("reader", "device"):
      switch value {
      case "": throw .missing("auto, simulated, none or a libnfc connstring like pn532_uart:/dev/serial0")
      case "auto": config.reader.device = .auto
      case "simulated": config.reader.device = .simulated
      case "none": config.reader.device = .none
      default: config.reader.device = .connstring(value)
      }
    case ("reader", "poll_interval"):
      config.reader.pollInterval = try Self.duration(value, in: ReaderSettings.pollIntervalRange)
    case ("audio", "device"):
      guard !value.isEmpty else { throw .missing("an ALSA device name like default") }
      config.audio.device = value
    case ("audio", "sound"):
      guard !value.isEmpty else {
        config.audio.sound = nil
        return
      }
      guard value.hasPrefix("/") else { throw .notAnAbsolutePath }
      config.audio.sound = value
    case ("audio", "start_volume"):
      config.audio.startVolumePercent = try Self.percentage(value)
    case ("audio", "ramp"):
      config.audio.ramp = try Self.duration(value, in: AudioSettings.rampRange)
    case ("audio", "volume_step"):
      config.audio.volumeStepPercent = try Self.percentage(value)
    case ("buzzer", _):
      var buzzer = config.buzzer ?? BuzzerSettings()
      switch key {
      case "on": buzzer.on = try Self.duration(value, in: BuzzerSettings.beatRange)
      case "off": buzzer.off = try Self.duration(value, in: BuzzerSettings.beatRange)
      default: try Self.applyLine(key: key, value: value, to: &buzzer.output)
      }
      config.buzzer = buzzer
    case ("button", _):
      var button = config.button ?? .defaultButton
      try Self.applyLine(key: key, value: value, to: &button)
      config.button = button
    case ("led", _):
      var led = config.led ?? .defaultLED
      try Self.applyLine(key: key, value: value, to: &led)
      config.led = led
    case ("mqtt", _):
      try Self.applyMQTT(key: key, value: value, to: &config.mqtt)
    case ("homeassistant", "enabled"):
      config.homeAssistant.enabled = try Self.boolean(value)
    case ("homeassistant", "discovery_prefix"):
      guard !value.isEmpty, !value.contains(where: { "#+ ".contains($0) }) else {
        throw .missing("an MQTT topic prefix without wildcards, like homeassistant")
      }
      config.homeAssistant.discoveryPrefix = value
    case ("homeassistant", "bypass_button"):
      config.homeAssistant.bypass.enabled = try Self.boolean(value)
    case ("homeassistant", "bypass_after"):
      config.homeAssistant.bypass.minimumRing = try Self.duration(
        value, in: NetworkBypassPolicy.minimumRingRange)
    case ("homeassistant", "pre_alarm"):
      config.homeAssistant.preAlarm = try Self.duration(value, in: HomeAssistantSettings.preAlarmRange)
    case ("homeassistant", "bypass_limit"):
      let range = NetworkBypassPolicy.limitRange
      guard !value.isEmpty else { throw .missing("a number of bypasses like 1") }
      guard let limit = Int(value) else { throw .notANumber }
      guard limit >= range.lowerBound else { throw .belowMinimum("\(range.lowerBound)") }
      guard limit <= range.upperBound else { throw .aboveMaximum("\(range.upperBound)") }
      config.homeAssistant.bypass.limit = limit
    case ("enforcement", _) where EnforcementSettings.duration(named: key) != nil:
      guard let (setting, range) = EnforcementSettings.duration(named: key) else { return }
      config.enforcement[keyPath: setting] = try Self.duration(value, in: range)
    default:
      // `consume` only calls this for keys listed in `DockConfig.knownKeys`; a key listed there
      // without a case here is a bug in this file, not bad input.
      preconditionFailure("no handler for known key \(section).\(key)")
    }
  }

  private static func applyLine(key: String, value: String, to line: inout GPIOLineSettings)
    throws(ValueProblem)
  {
    switch key {
    case "chip":
      guard !value.isEmpty else { throw .missing("a GPIO chip like gpiochip0") }
      line.chip = value
    case "line":
      guard !value.isEmpty, !value.contains(where: { $0 == " " || $0 == "\t" }) else { throw .notALine }
      if value.allSatisfy(\.isASCIIDigit) {
        guard let offset = UInt32(value) else { throw .notALine }
        line.line = .offset(offset)
      } else {
        guard !value.hasPrefix("-"), !value.hasPrefix("+") else { throw .notALine }
        line.line = .name(value)
      }
    case "active_low":
      line.activeLow = try boolean(value)
    default:
      preconditionFailure("no handler for GPIO key \(key)")
    }
  }

  private static func applyMQTT(key: String, value: String, to mqtt: inout MQTTSettings) throws(ValueProblem)
  {
    switch key {
    case "host":
      guard !value.isEmpty else { throw .missing("a host name or address like 192.168.1.10") }
      mqtt.host = value
    case "port":
      guard let port = Int(value), MQTTSettings.portRange.contains(port) else {
        throw value.isEmpty ? .missing("a port like 1883") : .notAPort
      }
      mqtt.port = port
    case "username": mqtt.username = value.isEmpty ? nil : value
    case "password_file", "ca_file":
      guard value.isEmpty || value.hasPrefix("/") else { throw .notAnAbsolutePath }
      if key == "ca_file" {
        mqtt.caFile = value.isEmpty ? nil : value
      } else {
        mqtt.passwordFile = value.isEmpty ? nil : value
      }
    case "dock_name":
      guard value.isEmpty || RemoteTopic.isValidName(value) else { throw .notAName }
      mqtt.dockName = value.isEmpty ? nil : value
    default:
      preconditionFailure("no handler for MQTT key \(key)")
    }
  }

  private static func duration(_ value: String, in range: ClosedRange<Duration>) throws(ValueProblem)
    -> Duration
  {
    guard !value.isEmpty else { throw .missing("a duration like \(range.upperBound.configText)") }
    guard let duration = Duration(configText: value) else { throw .notADuration }
    guard duration >= range.lowerBound else { throw .belowMinimum(range.lowerBound.configText) }
    guard duration <= range.upperBound else { throw .aboveMaximum(range.upperBound.configText) }
    return duration
  }

  private static func percentage(_ value: String) throws(ValueProblem) -> Int {
    guard !value.isEmpty else { throw .missing("a percentage like 30%") }
    var digits = Substring(value)
    if digits.hasSuffix("%") { digits = digits.dropLast() }
    digits = Substring(String(digits).trimmingWhitespace())
    guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let percent = Int(digits) else {
      throw .notAPercentage
    }
    let range = AudioSettings.startVolumeRange
    guard percent <= range.upperBound else { throw .aboveMaximum("\(range.upperBound)%") }
    return percent
  }

  private static func boolean(_ value: String) throws(ValueProblem) -> Bool {
    switch value.lowercased() {
    case "yes", "true", "on", "1": return true
    case "no", "false", "off", "0": return false
    case "": throw .missing("yes or no")
    default: throw .notABoolean
    }
  }

  /// The line without its comment: everything from a `#` or `;` that starts the line or
  /// follows a space or tab. A `#` inside a value (`pn532_uart:/dev/tty#1`) is kept.
  static func strippingComment(_ line: String) -> String {
    var previous: Character? = nil
    var kept = ""
    for character in line {
      if character == "#" || character == ";",
        previous == nil || previous == " " || previous == "\t"
      {
        return kept
      }
      kept.append(character)
      previous = character
    }
    return kept
  }
}
