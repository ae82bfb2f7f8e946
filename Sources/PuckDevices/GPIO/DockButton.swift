import PuckCore
import PuckSystem
import Synchronization

/// The dock button on a GPIO input (docs/DESIGN.md W3, V7): each debounced press is reported as
/// `.pressed`, which the daemon treats as a bypass, like `puckctl stop`.
///
/// The line is read on a reader thread of its own, in bounded waits (`Timing.waitSlice`,
/// 200 ms), so `stop()` ends it promptly. A line that cannot be opened, or fails while being
/// read, is reported through `health` and opened again every `Timing.reopenDelay`.
///
/// Synchronisation: `Sendable` without `@unchecked`. The health is behind a `Mutex`; the line
/// and the debouncer belong to the reader thread alone (`ButtonReader`); the thread's stop
/// request and exit are signalled through a `PlaybackSession` (an atomic flag and pipes).
public final class DockButton: Sendable {
  /// What the button reports.
  public enum Event: Hashable, Sendable {
    /// A debounced press.
    case pressed
  }

  /// The reader's timings.
  public struct Timing: Hashable, Sendable {
    /// Edges within this long of the last one taken are contact bounce. 50 ms by default.
    public var debounce: Duration = .milliseconds(50)
    /// The longest single wait for an edge, which bounds how long `stop()` takes. 200 ms.
    public var waitSlice: Duration = .milliseconds(200)
    /// How long to wait before opening a failed line again. 5 s.
    public var reopenDelay: Duration = .seconds(5)

    /// The defaults: 50 ms debounce, 200 ms waits, reopening every 5 s.
    public init() {}
  }

  /// The consumer label `gpioinfo` shows for the button's line.
  public static let consumer = "puckd-button"

  /// The configuration; nil when there is no `[button]` section.
  public let settings: GPIOLineSettings?
  /// The reader's timings.
  public let timing: Timing
  private let openLine: GPIOInputOpener
  private let onEvent: @Sendable (Event) -> Void
  private let state: Mutex<State>

  private struct State {
    var health: DeviceCondition
    var session: PlaybackSession?
  }

  /// A button on `settings`' line (nil: no button). `onEvent` is called on the reader thread
  /// for every press and must return quickly (post the event to the daemon's loop). Nothing
  /// is opened until `start()`.
  public init(
    settings: GPIOLineSettings?, timing: Timing = Timing(),
    openLine: @escaping GPIOInputOpener = { settings throws(GPIOError) in
      try GPIOLineRequest.input(settings, consumer: DockButton.consumer)
    },
    onEvent: @escaping @Sendable (Event) -> Void
  ) {
    self.settings = settings
    self.timing = timing
    self.openLine = openLine
    self.onEvent = onEvent
    let health =
      settings == nil
      ? DeviceCondition(.absent, "not configured (no [button] section)")
      : DeviceCondition(.ok, "not started")
    state = Mutex(State(health: health))
  }

  deinit {
    state.withLock { $0.session }?.requestStop()
  }

  /// Starts the reader thread; does nothing without a `[button]` section or when it runs.
  public func start() {
    guard let settings, state.withLock({ $0.session == nil }) else { return }
    let session: PlaybackSession
    do {
      session = try PlaybackSession()
    } catch {
      report(.fault(GPIOError(function: "pipe", code: -error.code, action: "cannot start the button reader")))
      return
    }
    state.withLock { $0.session = session }
    let reader = ButtonReader.Start(
      settings: settings, timing: timing, openLine: openLine, onEvent: onEvent,
      report: { [weak self] status in self?.report(status) })
    do throws(SystemError) {
      try SystemThread.detach {
        reader.run(session: session)
        session.markExited()
      }
    } catch {
      state.withLock { $0.session = nil }
      report(
        .fault(GPIOError(function: error.call, code: error.code, action: "cannot start the button reader")))
    }
  }

  /// Asks the reader thread to release the line and end, and waits for it up to `timeout`;
  /// true when it has ended (or never ran).
  @discardableResult
  public func stop(timeout: Duration = .seconds(1)) -> Bool {
    guard let session = state.withLock({ $0.session }) else { return true }
    session.requestStop()
    let ended = session.waitUntilExited(timeout: timeout)
    state.withLock { state in
      if ended { state.session = nil }
    }
    return ended
  }

  /// Status: `.absent` without a `[button]` section, `.fault` with what went wrong and what to
  /// check (retried every `reopenDelay`), otherwise `.ok` with the line.
  public var health: DeviceCondition { state.withLock { $0.health } }

  private func report(_ status: ButtonReader.Status) {
    state.withLock { state in
      switch status {
      case .listening(let location):
        state.health = DeviceCondition(.ok, "\(location): waiting for presses")
      case .fault(let error):
        state.health = DeviceCondition(
          .fault, "\(error.description); retrying every \(timing.reopenDelay.configText)", gpioFault: error)
      case .stopped:
        state.health = DeviceCondition(.ok, "stopped")
      }
    }
  }
}

/// The reader thread's side of the button: the line, the debouncer, and one bounded read at a
/// time. Not `Sendable`: it is made on the reader thread and never leaves it.
final class ButtonReader {
  /// What the reader tells its owner.
  enum Status: Sendable {
    /// The line is open.
    case listening(location: String)
    /// The line could not be opened or read.
    case fault(GPIOError)
    /// The thread released the line and ended.
    case stopped
  }

  /// What one read came to.
  enum Outcome: Equatable {
    /// A debounced press (`onEvent(.pressed)` was called).
    case pressed
    /// No edge in time, or only bounces and releases.
    case quiet
    /// The line could not be opened or read; try again after the reopen delay.
    case unavailable
  }

  /// What the thread needs to make its reader: all `Sendable`.
  struct Start: Sendable {
    let settings: GPIOLineSettings
    let timing: DockButton.Timing
    let openLine: GPIOInputOpener
    let onEvent: @Sendable (DockButton.Event) -> Void
    let report: @Sendable (Status) -> Void

    /// Reads until `session` asks to stop, then releases the line.
    func run(session: PlaybackSession) {
      let reader = ButtonReader(
        settings: settings, debounce: timing.debounce, openLine: openLine, onEvent: onEvent, report: report)
      while !session.isStopRequested {
        if reader.readOnce(timeout: timing.waitSlice) == .unavailable {
          _ = session.sleep(for: timing.reopenDelay)
        }
      }
      reader.release()
      report(.stopped)
    }
  }

  private let settings: GPIOLineSettings
  private let openLine: GPIOInputOpener
  private let onEvent: @Sendable (DockButton.Event) -> Void
  private let report: @Sendable (Status) -> Void
  private var debouncer: ButtonDebouncer
  private var line: (any GPIOInputLine)?

  /// A reader of `settings`' line; the line is opened by the first `readOnce`.
  init(
    settings: GPIOLineSettings, debounce: Duration, openLine: @escaping GPIOInputOpener,
    onEvent: @escaping @Sendable (DockButton.Event) -> Void, report: @escaping @Sendable (Status) -> Void
  ) {
    self.settings = settings
    self.openLine = openLine
    self.onEvent = onEvent
    self.report = report
    debouncer = ButtonDebouncer(window: debounce)
  }

  /// Opens the line if needed, waits at most `timeout` for one edge, and reports a press.
  func readOnce(timeout: Duration) -> Outcome {
    let line: any GPIOInputLine
    if let open = self.line {
      line = open
    } else {
      do {
        line = try openLine(settings)
      } catch {
        report(.fault(error))
        return .unavailable
      }
      self.line = line
      report(.listening(location: line.location))
    }
    do {
      guard let edge = try line.waitForEdge(timeout: timeout), debouncer.isPress(edge) else { return .quiet }
      onEvent(.pressed)
      return .pressed
    } catch {
      release()
      report(.fault(error))
      return .unavailable
    }
  }

  /// Releases the line, if open.
  func release() {
    line?.release()
    line = nil
  }
}
