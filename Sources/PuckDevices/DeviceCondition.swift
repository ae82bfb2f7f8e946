import PuckCore

/// How a driver's device stands, in the driver's words: ok with what it is doing, a fault with
/// what went wrong and what to try, or not configured. The daemon names the device and puts it
/// in status (`DeviceHealth`); a driver never builds the wire type.
public struct DeviceCondition: Hashable, Sendable {
  public var state: DeviceHealth.State
  /// "testchip line 18: off", "PN532 v1.6 on pn532_uart:/dev/serial0", the fault and its fix.
  public var detail: String
  /// The libgpiod failure behind a `.fault` of a buzzer, button or LED, from which the daemon,
  /// which knows the config file, says what to do next (`GPIOError.nextStep`).
  public var gpioFault: GPIOError?

  public init(_ state: DeviceHealth.State, _ detail: String, gpioFault: GPIOError? = nil) {
    self.state = state
    self.detail = detail
    self.gpioFault = gpioFault
  }
}
