import PuckCore
import PuckSystem

/// What the status LED says.
public enum LEDIndication: Hashable, Sendable, CustomStringConvertible {
  /// Dark: the daemon is stopped (or stopping).
  case off
  /// Lit: the dock is protected.
  case steady
  /// Blinking at 1 Hz: a wake-up is open, or something needs attention (not protected).
  case blinking
  /// Flickering at 4 Hz: the last pre-flight check failed before a coming alarm.
  case alert

  /// "off", "steady", "blinking".
  public var description: String {
    switch self {
    case .off: return "off"
    case .steady: return "steady"
    case .blinking: return "blinking"
    case .alert: return "flickering (a check failed)"
    }
  }
}

/// The dock's status LED on a GPIO line: steady when protected, blinking (`BeatPattern.blink`,
/// 1 Hz) while a guard is open or something needs attention, flickering (`BeatPattern.flicker`,
/// 4 Hz) when a pre-flight check failed before a coming alarm, off when the daemon stops.
///
/// Timing works as in `BuzzerDriver`: `step()` drives the level due now and returns the next
/// deadline; the daemon's LED steps itself on its own thread, a LED given a clock
/// is stepped by its caller (tests, with a manual clock).
///
/// Synchronisation: `Sendable` without `@unchecked`; the line and the indication live in a
/// `TimedOutput`, behind its `Mutex`, and the line is only touched while it is held.
public final class StatusLED: Sendable {
  /// The line, its timing, and what it shows.
  private let line: TimedOutput<LEDIndication>

  /// The consumer label `gpioinfo` shows for the LED's line.
  public static let consumer = "puckd-led"

  /// A LED on the line `settings` names (nil: no `[led]` section, nothing to drive), dark at
  /// once. Without `clock`, the daemon's LED: the system's monotonic clock and a timing thread
  /// of its own; with one, its caller calls `step()` at each deadline.
  public init(
    settings: GPIOLineSettings?, clock: (any MonotonicClock)? = nil,
    openLine: @escaping GPIOOutputOpener = GPIOLineRequest.outputOpener(consumer: consumer)
  ) {
    line = TimedOutput(line: settings, mode: .off, clock: clock, openLine: openLine)
  }

  /// Shows `indication` from now on; showing the current one again changes nothing (a blink
  /// keeps its phase). Opens the line again if it failed.
  public func show(_ indication: LEDIndication) {
    line.update(force: true) { [line] state, now in
      guard indication != state.mode || state.output?.line == nil else { return }
      state.mode = indication
      state.output?.open(with: line.openLine)
      switch indication {
      case .off: state.output?.signal = .off
      case .steady: state.output?.signal = .on
      case .blinking: state.output?.signal = .beats(.blink, since: now)
      case .alert: state.output?.signal = .beats(.flicker, since: now)
      }
    }
  }

  /// Drives the level due now and returns when the next change is due (nil: none until the
  /// next `show`).
  @discardableResult
  public func step() -> MonotonicInstant? {
    line.step()
  }

  /// Turns the LED off, releases the line and ends the timing thread (daemon stopping).
  public func shutdown() {
    line.shutdown(mode: .off)
  }

  /// What the LED shows.
  public var indication: LEDIndication { line.read(\.mode) }

  /// Status: `.absent` without an `[led]` section, `.fault` with what went wrong, otherwise
  /// `.ok` with the line and what it shows.
  public var health: DeviceCondition {
    line.read { state in
      guard let output = state.output else {
        return DeviceCondition(.absent, "not configured (no [led] section)")
      }
      if let fault = output.fault ?? state.threadFault {
        return DeviceCondition(.fault, fault.description, gpioFault: fault)
      }
      return DeviceCondition(.ok, "\(output.location): \(state.mode)")
    }
  }
}
