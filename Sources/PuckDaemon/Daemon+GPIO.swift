import PuckCore
import PuckDevices

extension Daemon {
  /// (Re)creates the buzzer, LED and button from the config. A line can be held by one request
  /// only, so the old drivers let go of theirs first.
  func startGPIO() {
    buzzer.shutdown()
    led.shutdown()
    _ = button.stop()
    buzzer = BuzzerDriver(settings: config.buzzer)
    led = StatusLED(settings: config.led)
    let inbox = loop.inbox
    button = DockButton(settings: config.button) { event in inbox.post(.button(event)) }
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
