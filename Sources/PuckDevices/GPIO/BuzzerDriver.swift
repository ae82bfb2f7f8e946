import PuckCore
import PuckSystem

/// The dock's active buzzer on a GPIO line (docs/DESIGN.md W2, V6): while ringing it beeps the
/// `[buzzer]` pattern (on for `on`, off for `off`, repeated); `stop()` silences it at once; a
/// wrong puck gets a short chirp that never disturbs a ring. The line is driven off when the
/// driver is made (daemon start) and by `shutdown()` (SIGTERM).
///
/// Timing comes from the clock it is given: `step()` drives the level due now and returns when
/// the next change is due. The daemon's driver (`init(settings:openLine:)`) runs `step()` on
/// its own thread; a driver given a clock is stepped by its
/// caller, which is how tests check exact transition times with a manual clock.
///
/// A line that cannot be opened is reported through `health` and opened again at the next
/// `start()` or `chirp(_:)`, so a chip that appears late still rings.
///
/// Synchronisation: `Sendable` without `@unchecked`; the line and the ringing flag live in a
/// `TimedOutput`, behind its `Mutex`, and the line is only touched while it is held.
public final class BuzzerDriver: Sendable {
  /// The configuration; nil when there is no `[buzzer]` section.
  public let settings: BuzzerSettings?
  /// The line, its timing, and whether a ring is going.
  private let line: TimedOutput<Bool>

  /// The consumer label `gpioinfo` shows for the buzzer's line.
  public static let consumer = "puckd-buzzer"

  /// A buzzer on its line, driven off at once. Without `clock`, the daemon's buzzer: the
  /// system's monotonic clock and a timing thread of its own; with one, its caller calls
  /// `step()` at each deadline. `openLine` requests the line (the real one by default).
  public init(
    settings: BuzzerSettings?, clock: (any MonotonicClock)? = nil,
    openLine: @escaping GPIOOutputOpener = GPIOLineRequest.outputOpener(consumer: consumer)
  ) {
    self.settings = settings
    line = TimedOutput(line: settings?.output, mode: false, clock: clock, openLine: openLine)
  }

  /// Starts ringing now: on for `on`, off for `off`, until `stop()`. Does nothing while a ring
  /// is going (the beat never restarts); interrupts a chirp. Opens the line again if it failed.
  public func start() {
    line.update { [line, settings] state, now in
      guard !state.mode, let settings else { return }
      state.output?.open(with: line.openLine)
      state.mode = true
      state.output?.signal = .beats(.ring(settings), since: now)
    }
  }

  /// Stops ringing (or chirping) and drives the line off at once.
  public func stop() {
    line.update(force: true) { state, _ in
      state.mode = false
      state.output?.signal = .off
    }
  }

  /// Chirps `pattern` (a finite one: `BeatPattern.wrongPuck`, `.checkFailed`) unless a ring
  /// is going, which it leaves alone.
  public func chirp(_ pattern: BeatPattern) {
    line.update { [line] state, now in
      guard !state.mode else { return }
      state.output?.open(with: line.openLine)
      state.output?.signal = .beats(pattern, since: now)
    }
  }

  /// Drives the level due now and returns when the next change is due (nil: nothing due until
  /// the next command). Called by the timing thread, or by the owner of a manually stepped
  /// driver at each deadline.
  @discardableResult
  public func step() -> MonotonicInstant? {
    line.step()
  }

  /// Drives the line off, releases it and ends the timing thread; later commands do nothing.
  /// For SIGTERM: the buzzer must never be left sounding.
  public func shutdown() {
    line.shutdown(mode: false)
  }

  /// Whether a ring is going.
  public var isRinging: Bool { line.read(\.mode) }

  /// Status: `.absent` without a `[buzzer]` section, `.fault` with what went wrong and what to
  /// check, otherwise `.ok` with the line and what it is doing.
  public var health: DeviceCondition {
    line.read { [settings] state in
      guard let output = state.output, let settings else {
        return DeviceCondition(.absent, "not configured (no [buzzer] section)")
      }
      if let fault = output.fault ?? state.threadFault {
        return DeviceCondition(.fault, fault.description, gpioFault: fault)
      }
      let doing =
        state.shutDown
        ? "released"
        : state.mode ? "ringing (\(settings.on.configText) on, \(settings.off.configText) off)" : "off"
      return DeviceCondition(.ok, "\(output.location): \(doing)")
    }
  }
}
