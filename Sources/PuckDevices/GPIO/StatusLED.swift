import PuckCore
import Synchronization

/// What the status LED says.
public enum LEDIndication: Hashable, Sendable, CustomStringConvertible {
  /// Dark: the daemon is stopped (or stopping).
  case off
  /// Lit: the dock is protected.
  case steady
  /// Blinking at 1 Hz: a wake-up is open, or something needs attention (not protected).
  case blinking

  /// "off", "steady", "blinking".
  public var description: String {
    switch self {
    case .off: return "off"
    case .steady: return "steady"
    case .blinking: return "blinking"
    }
  }
}

/// The dock's status LED on a GPIO line: steady when protected, blinking (`BeatPattern.blink`,
/// 1 Hz) while a guard is open or something needs attention, off when the daemon stops.
///
/// Timing works as in `BuzzerDriver`: `step()` drives the level due now and returns the next
/// deadline; the daemon's LED steps itself on its own thread, a LED made with
/// `init(settings:clock:openLine:)` is stepped by its caller (tests, with a manual clock).
///
/// Synchronisation: `Sendable` without `@unchecked`; the line and indication are behind a
/// `Mutex`, and the line is only touched while it is held.
public final class StatusLED: Sendable {
  /// The configuration; nil when there is no `[led]` section.
  public let settings: GPIOLineSettings?
  private let clock: any MonotonicClock
  private let openLine: GPIOOutputOpener
  private let state: Mutex<State>
  private let thread: DeadlineThread?

  private struct State {
    var output: PatternedLine?
    var indication = LEDIndication.off
    var shutDown = false
    var threadFault: GPIOError?
  }

  /// The consumer label `gpioinfo` shows for the LED's line.
  public static let consumer = "puckd-led"

  /// The daemon's LED: the real line, the system's monotonic clock and a timing thread of its
  /// own. The line is requested dark.
  public convenience init(
    settings: GPIOLineSettings?,
    openLine: @escaping GPIOOutputOpener = { settings throws(GPIOError) in
      try GPIOLineRequest.output(settings, consumer: StatusLED.consumer)
    }
  ) {
    self.init(settings: settings, clock: SystemMonotonicClock(), openLine: openLine, ownThread: true)
  }

  /// A LED whose caller calls `step()` at each deadline, reading time from `clock`. The line is
  /// opened and driven dark at once.
  public convenience init(
    settings: GPIOLineSettings?, clock: any MonotonicClock, openLine: @escaping GPIOOutputOpener
  ) {
    self.init(settings: settings, clock: clock, openLine: openLine, ownThread: false)
  }

  private init(
    settings: GPIOLineSettings?, clock: any MonotonicClock, openLine: @escaping GPIOOutputOpener,
    ownThread: Bool
  ) {
    self.settings = settings
    self.clock = clock
    self.openLine = openLine
    var output = settings.map { PatternedLine(settings: $0) }
    if output?.open(with: openLine) == true {
      _ = output?.step(at: clock.now(), force: true)
    }
    var threadFault: GPIOError?
    var thread: DeadlineThread?
    if settings != nil && ownThread {
      do {
        thread = try DeadlineThread()
      } catch {
        threadFault = error
      }
    }
    self.thread = thread
    state = Mutex(State(output: output, threadFault: threadFault))
    do {
      try thread?.start { [weak self] in self?.step() }
    } catch {
      state.withLock { $0.threadFault = error }
    }
  }

  /// A driver dropped without `shutdown()` still leaves its line off and ends its thread.
  deinit {
    state.withLock { $0.output?.release() }
    thread?.stop()
  }

  /// Shows `indication` from now on; showing the current one again changes nothing (a blink
  /// keeps its phase). Opens the line again if it failed.
  public func show(_ indication: LEDIndication) {
    state.withLock { state in
      guard !state.shutDown, indication != state.indication || state.output?.line == nil else { return }
      let now = clock.now()
      state.indication = indication
      state.output?.open(with: openLine)
      switch indication {
      case .off: state.output?.signal = .off
      case .steady: state.output?.signal = .on
      case .blinking: state.output?.signal = .beats(.blink, since: now)
      }
      _ = state.output?.step(at: now, force: true)
    }
    thread?.wake()
  }

  /// Drives the level due now and returns when the next change is due (nil: none until the
  /// next `show`).
  @discardableResult
  public func step() -> MonotonicInstant? {
    state.withLock { state in
      guard !state.shutDown else { return nil }
      return state.output?.step(at: clock.now())
    }
  }

  /// Turns the LED off, releases the line and ends the timing thread (daemon stopping).
  public func shutdown() {
    state.withLock { state in
      state.shutDown = true
      state.indication = .off
      state.output?.release()
    }
    thread?.stop()
  }

  /// What the LED shows.
  public var indication: LEDIndication { state.withLock { $0.indication } }

  /// Status: `.absent` without an `[led]` section, `.fault` with what went wrong, otherwise
  /// `.ok` with the line and what it shows.
  public var health: DeviceHealth {
    state.withLock { state in
      guard let output = state.output else {
        return DeviceHealth(name: "led", state: .absent, detail: "not configured (no [led] section)")
      }
      if let fault = output.fault ?? state.threadFault {
        return DeviceHealth(name: "led", state: .fault, detail: fault.description)
      }
      return DeviceHealth(name: "led", state: .ok, detail: "\(output.location): \(state.indication)")
    }
  }
}
