import PuckCore
import PuckDevices

/// The dock's GPIO: the buzzer, the status LED and the button, each made from its config
/// section (`.absent` without one) through the environment's line openers. A part the config
/// names that cannot be opened is a `fault` with what to do next, never `.absent`.
final class DockLines {
  private let gpio: GPIOOpeners
  /// The config file the sections are in, for the next step a fault names.
  private let configFile: String
  private let onPress: @Sendable (DockButton.Event) -> Void
  /// The sections the drivers were made from.
  private var config = DockConfig.defaults
  // Placeholders until the config is read: no lines are requested without a section.
  private(set) var buzzer = BuzzerDriver(settings: nil)
  private var led = StatusLED(settings: nil)
  private var button = DockButton(settings: nil) { _ in }

  init(gpio: GPIOOpeners, configFile: String, onPress: @escaping @Sendable (DockButton.Event) -> Void) {
    self.gpio = gpio
    self.configFile = configFile
    self.onPress = onPress
  }

  /// (Re)creates the buzzer, LED and button from `config`. A line can be held by one request
  /// only, so the old drivers let go of theirs first.
  func start(_ config: DockConfig) {
    shutdown()
    self.config = config
    buzzer =
      gpio.buzzer.map { BuzzerDriver(settings: config.buzzer, openLine: $0) }
      ?? BuzzerDriver(settings: config.buzzer)
    led = gpio.led.map { StatusLED(settings: config.led, openLine: $0) } ?? StatusLED(settings: config.led)
    button =
      gpio.button.map { DockButton(settings: config.button, openLine: $0, onEvent: onPress) }
      ?? DockButton(settings: config.button, onEvent: onPress)
    button.start()
    for device in health where device.state == .fault {
      Log.error("\(device.name): \(device.detail)\(device.next.map { " — next: \($0)" } ?? "")")
    }
  }

  /// The LED: steady when protected with no wake-up open, blinking otherwise, flickering while
  /// a failed pre-flight check stands before a coming alarm.
  func showLED(steady: Bool, alert: Bool = false) {
    led.show(alert ? .alert : steady ? .steady : .blinking)
  }

  /// The buzzer's, button's and LED's health, in that order; a fault carries its next step.
  var health: [DeviceHealth] {
    [
      health(.buzzer, buzzer.health, line: config.buzzer?.output),
      health(.button, button.health, line: config.button), health(.led, led.health, line: config.led),
    ]
  }

  /// `condition` as status shows it, with what to do about a GPIO fault: the step names the
  /// config file, the section and the chips this machine has.
  private func health(_ device: DockDevice, _ condition: DeviceCondition, line: GPIOLineSettings?)
    -> DeviceHealth
  {
    var health = DeviceHealth(device, condition)
    if condition.state == .fault, let fault = condition.gpioFault, let line {
      health.next = fault.nextStep(
        line: line, section: device.rawValue, configFile: configFile, chips: GPIOLineRequest.chipNames())
    }
    return health
  }

  /// Releases every line (the buzzer driven off first).
  func shutdown() {
    buzzer.shutdown()
    led.shutdown()
    _ = button.stop()
  }
}

extension DeviceHealth {
  /// What a driver reported of `device`, as status shows it.
  init(_ device: DockDevice, _ condition: DeviceCondition) {
    self.init(device, state: condition.state, detail: condition.detail)
  }
}
