import Glibc
import PuckCore
import PuckDevices
import PuckSystem

/// The assistant's steps beyond the board's own reader: the wired buzzer, button and LED, and
/// a reader node when no reader answers here.
extension SetupCommand {
  /// One line of `puckd.conf` the assistant sets: `[section] key = value`.
  typealias Change = (section: String, key: String, value: String)

  /// A part wired to the header: its config section, the pin map's line (hardware/README.md)
  /// and its header pin.
  struct WiredPart: Sendable {
    let device: DockDevice
    let mapLine: String
    let headerPin: Int
    /// The button is an input; the buzzer and the LED are outputs.
    var isInput: Bool { device == .button }
    /// Its `puckd.conf` section: `[buzzer]`, `[button]`, `[led]`.
    var section: String { device.rawValue }
  }

  /// The pin map: buzzer on GPIO22 (header pin 15), button on GPIO17 (pin 11), LED on GPIO27
  /// (pin 13). Lines by name, which survive the chip renumbering of a Pi 5.
  static let wiredParts = [
    WiredPart(device: .buzzer, mapLine: "GPIO22", headerPin: 15),
    WiredPart(device: .button, mapLine: "GPIO17", headerPin: 11),
    WiredPart(device: .led, mapLine: "GPIO27", headerPin: 13),
  ]

  /// The line `part` is configured on, nil when its section is not in the config.
  static func configured(_ part: WiredPart, in config: DockConfig) -> GPIOLineSettings? {
    switch part.device {
    case .buzzer: return config.buzzer?.output
    case .button: return config.button
    case .led: return config.led
    case .reader, .audio: return nil
    }
  }

  /// Tries the buzzer, the button and the LED. A part puckd already drives is confirmed from
  /// its status and not opened a second time. For a person, a part the config lacks is asked
  /// for (the pin map's line or the one wired), beeped, blinked or pressed, and confirmed; with
  /// --yes or --json a configured part is only opened (a line that opens says nothing of what
  /// is wired to it, so nothing unconfirmed is ever added: a buzzer in the config counts as
  /// something that can ring). Returns the lines to write and each part's finding.
  func tryWiredParts(_ config: DockConfig, status: DockStatus?, configPath: String)
    -> (changes: [Change], findings: [String: String])
  {
    let chips = GPIOLineRequest.chipNames()
    let anyConfigured = Self.wiredParts.contains { Self.configured($0, in: config) != nil }
    say("Buzzer, button, LED:")
    guard !chips.isEmpty || anyConfigured else {
      say("  no GPIO chip on this machine (gpiodetect lists none): skipped")
      return ([], [:])
    }
    let trial = PartTrial(
      openOutput: GPIOLineRequest.outputOpener(consumer: "puckctl setup"),
      openInput: { settings throws(GPIOError) in
        try GPIOLineRequest.input(settings, consumer: "puckctl setup")
      },
      pause: Self.sleep)
    var changes: [Change] = []
    var findings: [String: String] = [:]
    for part in Self.wiredParts {
      let name = part.section
      let configured = Self.configured(part, in: config)
      let running = status?.devices.first { $0.name == part.device.rawValue }
      if configured != nil, let running, running.state == .ok {
        say("  \(name): puckd drives it: \(running.detail)")
        findings[name] = "ok"
        continue
      }
      guard configured != nil || !(assumeYes || json) else {
        say("  \(name): not in the config; added only when a person confirms it (sudo puckctl setup)")
        findings[name] = "not configured"
        continue
      }
      var settings = configured ?? GPIOLineSettings(line: .name(part.mapLine), activeLow: part.isInput)
      if configured == nil {
        guard let line = askLine(part) else {
          say("  \(name): none wired")
          findings[name] = "none"
          continue
        }
        settings.line = line
      }
      let outcome = tryPart(part, settings, with: trial)
      switch outcome {
      case .confirmed(let location):
        say("  \(name): ok, \(location)")
        findings[name] = "ok"
        if configured == nil { changes.append((name, "line", settings.line.description)) }
      case .unconfirmed(let location) where assumeYes || json:
        say(
          "  \(name): \(location) opens (only a person can confirm what is wired to it: sudo puckctl setup)")
        findings[name] = "opens"
      case .unconfirmed(let location):
        say(
          "  \(name): \(location) opens but was not confirmed: check the wiring against the pin map "
            + "(hardware/README.md) and run setup again")
        findings[name] = "not confirmed"
      case .failed(let error):
        say("  \(name): FAILED \(error)")
        findings[name] = "failed: \(error)"
        if configured != nil {
          // The sentence status, `puckctl check` and the log give for the same fault.
          say(
            "    next: \(error.nextStep(line: settings, section: name, configFile: configPath, chips: chips))"
          )
        }
      }
    }
    return (changes, findings)
  }

  /// Beeps the buzzer or blinks the LED and asks, or waits for the button; with --yes or
  /// --json only opens the line.
  private func tryPart(_ part: WiredPart, _ settings: GPIOLineSettings, with trial: PartTrial)
    -> PartTrial.Outcome
  {
    if assumeYes || json { return trial.opens(settings, input: part.isInput) }
    switch part.device {
    case .button:
      say("  press the dock button (within 20 s) …")
      return trial.press(settings, within: .seconds(20))
    case .buzzer:
      say("  buzzer on \(settings.line): beeping 3 times …")
      return trial.signal(settings) { ask("Did the buzzer beep?") }
    default:
      say("  LED on \(settings.line): blinking 3 times …")
      return trial.signal(settings) { ask("Did the LED blink?") }
    }
  }

  /// Which line `part` is wired to: Enter takes the pin map's, `n` none, anything else is a
  /// line name (`GPIO5`) or offset (`5`). No answer to read is none.
  private func askLine(_ part: WiredPart) -> GPIOLine? {
    say(
      "  \(part.section): the pin map puts it on \(part.mapLine) (header pin \(part.headerPin)). "
        + "Its line? [Enter: \(part.mapLine), a name or offset, n: none] ", newline: false)
    guard let answer = readLine()?.filter({ !$0.isWhitespace }) else { return nil }
    if answer.isEmpty { return .name(part.mapLine) }
    if ["n", "no", "none"].contains(answer.lowercased()) { return nil }
    return UInt32(answer).map(GPIOLine.offset) ?? .name(String(answer.prefix(32)))
  }

  /// Waits `duration` on the monotonic clock, for a person watching a beep or a blink.
  @Sendable static func sleep(_ duration: Duration) {
    // An absolute deadline, so a wait the funnel restarts after a signal still ends on time.
    var deadline = (SystemClock.monotonic.now() + duration).waitTimespec
    try? systemCallReturningError("clock_nanosleep") {
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil)
    }
  }

  /// The reader nodes puckd has enrolled (`reader list`): their scans end a wake-up, so a board
  /// with one needs no reader of its own.
  func enrolledNodes() -> [String] {
    guard let reply = try? client.send(ControlRequest(.readerList)), reply.ok == true else { return [] }
    return (reply.readers ?? []).map { "\($0.state.rawValue): \($0.detail)" }
  }

  /// No reader answered on this board: offers a reader node, a second board that sends signed
  /// scans over MQTT, for a kitchen out of cable reach. True when one was enrolled.
  func offerReaderNode(daemonRunning: Bool) throws -> Bool {
    let hint =
      "A reader out of cable reach, in the kitchen say, can be a reader node: a second board that "
      + "sends signed scans over MQTT (hardware/README.md, 'Reader node'; sudo puckctl reader add NAME)."
    guard !(assumeYes || json), daemonRunning else {
      say(hint)
      return false
    }
    guard ask("Is the reader out of cable reach, on a reader node (a second board, over MQTT)?") else {
      return false
    }
    say("  the node's name? [kitchen] ", newline: false)
    let answer = readLine()?.filter { !$0.isWhitespace } ?? ""
    let reply = try client.send(
      try ControlRequest(commandLine: ["reader", "add", answer.isEmpty ? "kitchen" : answer]))
    say(reply.message ?? "")
    return reply.ok == true
  }
}
