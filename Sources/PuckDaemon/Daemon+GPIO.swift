import PuckCore
import PuckDevices

extension Daemon {
  /// (Re)creates the buzzer, LED and button from the config. A line can be held by one request
  /// only, so the old drivers let go of theirs first.
  func startGPIO() {
    buzzer.shutdown()
    led.shutdown()
    _ = button.stop()
    buzzer =
      gpio.buzzer.map { BuzzerDriver(settings: config.buzzer, openLine: $0) }
      ?? BuzzerDriver(settings: config.buzzer)
    led = gpio.led.map { StatusLED(settings: config.led, openLine: $0) } ?? StatusLED(settings: config.led)
    let inbox = loop.inbox
    let onPress: @Sendable (DockButton.Event) -> Void = { event in inbox.post(.button(event)) }
    button =
      gpio.button.map { DockButton(settings: config.button, openLine: $0, onEvent: onPress) }
      ?? DockButton(settings: config.button, onEvent: onPress)
    button.start()
    for device in [buzzer.health, button.health, led.health] where device.state == .fault {
      Log.error("\(device.name): \(device.detail)")
    }
    if ringing != nil { buzzer.start() }
  }

  /// The LED: steady when protected, blinking while a wake-up is open or something needs
  /// attention.
  func showLED(protected: Bool) {
    led.show(protected && machine.guards.isEmpty ? .steady : .blinking)
  }
}
