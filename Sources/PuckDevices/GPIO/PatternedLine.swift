import PuckCore
import PuckSystem

/// What an output line should show.
enum LineSignal: Hashable, Sendable {
  /// Inactive.
  case off
  /// Active, steadily.
  case on
  /// A pattern that began at an instant; the line goes off when a finite pattern ends.
  case beats(BeatPattern, since: MonotonicInstant)

  /// The level at `now`, and when it next changes (nil: not until the signal is changed).
  func level(at now: MonotonicInstant) -> (on: Bool, next: MonotonicInstant?) {
    switch self {
    case .off: return (false, nil)
    case .on: return (true, nil)
    case .beats(let pattern, let start):
      let elapsed = now - start
      return (pattern.isOn(after: elapsed), pattern.nextChange(after: elapsed).map { start + $0 })
    }
  }

  /// Whether a finite pattern is over at `now`.
  func isFinished(at now: MonotonicInstant) -> Bool {
    guard case .beats(let pattern, let start) = self else { return false }
    return pattern.isFinished(after: now - start)
  }
}

/// One configured output line and what it should show: the shared core of `BuzzerDriver` and
/// `StatusLED`. It opens the line through its opener (again after a failure, when asked),
/// drives it only when the level changes, and remembers the last failure for status.
///
/// Not `Sendable` (it holds the line): it lives inside its driver's `Mutex`.
struct PatternedLine {
  /// The configured line.
  let settings: GPIOLineSettings
  /// The open line; nil before the first successful open and after `release()`.
  private(set) var line: (any GPIOOutputLine)?
  /// The latest failure to open or drive the line; nil once it works again.
  private(set) var fault: GPIOError?
  /// What the line should show.
  var signal: LineSignal = .off
  /// The level last driven successfully; nil when unknown.
  private var driven: Bool?

  /// A line for `settings`, not yet opened.
  init(settings: GPIOLineSettings) {
    self.settings = settings
  }

  /// Opens the line unless it is open (the request drives it inactive); false when that failed.
  @discardableResult
  mutating func open(with opener: GPIOOutputOpener) -> Bool {
    if line != nil { return true }
    do {
      let opened = try opener(settings)
      line = opened
      fault = nil
      driven = nil
      return true
    } catch {
      fault = error
      return false
    }
  }

  /// Drives the level the signal has at `now` if it differs from the last one driven (always
  /// when `force`), forgets a finished pattern, and returns when the level next changes.
  mutating func step(at now: MonotonicInstant, force: Bool = false) -> MonotonicInstant? {
    let (on, next) = signal.level(at: now)
    if signal.isFinished(at: now) { signal = .off }
    drive(on, force: force)
    return next
  }

  /// Drives the line off now, whatever was driven before, and releases it.
  mutating func release() {
    signal = .off
    drive(false, force: true)
    line?.release()
    line = nil
    driven = nil
  }

  /// Where the line is, for status: the open line's location, or the configured chip and line.
  var location: String {
    line?.location ?? "\(settings.chip) line \(settings.line)"
  }

  private mutating func drive(_ on: Bool, force: Bool) {
    guard let line, force || driven != on else { return }
    do {
      try line.set(on: on)
      driven = on
      fault = nil
    } catch {
      driven = nil
      fault = error
    }
  }
}
