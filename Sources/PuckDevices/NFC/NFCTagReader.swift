import PuckCore
import PuckSystem
import Synchronization

/// The tag reader on a libnfc device (PN532 on UART/I2C/SPI, ACR122U on USB): a thread of its
/// own opens the device, polls it with short bounded calls while enabled, keeps the field off
/// while not, and reopens it with backoff when it fails.
///
/// For the daemon: make one at start-up from `[reader] device` (`auto` → nil connstring;
/// `simulated` → no `NFCTagReader` at all), `start()` it, enable it while a wake guard is open
/// or a pairing waits, call `checkHealth()` before each alarm and `checkProgress()` on the
/// watchdog tick, and act only on `.scanned(uid, fresh: true)` (a `fresh: false` scan is a
/// puck left on the reader: say "take it away and scan again"). Faults never stop it: it keeps
/// reopening the device, so a reader plugged back in is found again.
///
/// libnfc reads `LIBNFC_AUTO_SCAN`, `LIBNFC_INTRUSIVE_SCAN`, `LIBNFC_LOG_LEVEL` and
/// `/etc/nfc/libnfc.conf` at each open; its own error lines go to stderr.
///
/// Synchronisation: `Sendable` without `@unchecked`. The `NFCDevice` lives on the reader's
/// thread alone; what other threads may touch (enabled, requests, heartbeat, last health) is
/// behind a `Mutex` in `ReaderControl`, and a self-pipe wakes the thread when it changes.
public final class NFCTagReader: TagReader {
  /// How the reader is driven. The defaults suit a person walking up with a puck.
  public struct Configuration: Hashable, Sendable {
    /// libnfc connection string (`pn532_uart:/dev/serial0`, `acr122_usb`); nil for libnfc's
    /// default device.
    public var connstring: String?
    /// Pause between polls while enabled (each poll is one select, ≤ 300 ms on a PN532).
    public var pollInterval: Duration = .milliseconds(100)
    /// How often the device is probed while idle, so status can say the reader is there.
    public var idleHealthInterval: Duration = .seconds(60)
    /// Polls in a row without a tag before it counts as removed; with `settledAbsence`, the
    /// settled interval a tag must be away before its next arrival counts as a fresh scan.
    /// Four, because a PN532 lists one target per poll: with a puck and a sticker in the field,
    /// anticollision answers one, then the other, so each goes unseen for a poll or two in a
    /// row (more with three tags), and a tag at the edge of the field misses the odd poll.
    public var removalMisses = 4
    /// The time a tag must be away, at least, before it counts as removed: 400 ms, about four
    /// polls at the default interval, and still that long if polls come faster. Taking the
    /// puck off the reader and presenting it again takes a person longer than this, so the
    /// rule costs nobody a scan.
    public var settledAbsence: Duration = .milliseconds(400)
    /// Failed libnfc calls in a row (timeouts, I/O errors) before the reader is reported
    /// faulty, closed and reopened. One garbled frame is not a fault.
    public var failuresBeforeFault = 3
    /// First delay before reopening a faulty reader; it doubles up to `maximumReopenDelay`.
    public var initialReopenDelay: Duration = .milliseconds(500)
    /// Longest delay between reopen attempts.
    public var maximumReopenDelay: Duration = .seconds(10)
    /// How long the thread may go without progress before `checkProgress` reports it stuck.
    public var stallLimit: Duration = .seconds(5)

    /// The defaults, for the reader at `connstring` (nil: libnfc's default device).
    public init(connstring: String?, pollInterval: Duration = .milliseconds(100)) {
      self.connstring = connstring
      self.pollInterval = pollInterval
    }
  }

  /// How this reader is driven.
  public let configuration: Configuration
  private let control: ReaderControl

  /// A reader for `configuration`; nothing happens until `start`. `onEvent` is called on the
  /// reader's thread (a stall found by `checkProgress` is reported on the caller's thread) and
  /// must not block.
  public init(configuration: Configuration, onEvent: @escaping @Sendable (TagReaderEvent) -> Void) {
    self.configuration = configuration
    control = ReaderControl(onEvent: onEvent)
  }

  /// Asks the thread to stop without waiting for it: the thread holds what it needs (not this
  /// object), ends by itself, and a reader dropped on the daemon's loop thread never blocks it.
  /// Call `stop()` to wait.
  deinit {
    control.requestStop()
  }

  /// Starts the reader's thread. Calling it again does nothing.
  public func start() {
    start(after: nil)
  }

  /// Starts the reader's thread in place of `previous` (a reader replaced on reload): asks
  /// `previous` to stop and returns at once; the new thread waits (up to `stop()`'s limit) for
  /// the old one to close its device before opening its own. So the caller's thread never
  /// waits on a libnfc call, and unless the old thread is stuck in libnfc for longer than that,
  /// two threads never talk to the same chip. Calling it again does nothing.
  public func start(after previous: (any TagReader)?) {
    previous?.requestStop()
    guard control.markStarted() else { return }
    let configuration = self.configuration
    let control = self.control
    let previousControl = (previous as? NFCTagReader)?.control
    do throws(SystemError) {
      try SystemThread.detach {
        if let previousControl { _ = previousControl.waitUntilFinished(timeout: Self.stopLimit) }
        var loop = ReaderPollLoop(configuration: configuration, control: control)
        loop.run()
      }
    } catch {
      control.finish()
      control.report(
        DeviceCondition(.fault, "cannot start the reader's thread: pthread_create error \(error.code)"),
        force: true)
    }
  }

  /// Polls for tags while enabled; RF off and no polling while not.
  public func setEnabled(_ enabled: Bool) {
    control.setEnabled(enabled)
  }

  /// Whether polling is asked for.
  public var isEnabled: Bool {
    control.isEnabled
  }

  /// Asks for a health report now: a probe of the open device (or a reopen attempt, skipping
  /// the backoff, when it is closed); the answer comes as a `.health` event.
  public func checkHealth() {
    control.requestHealth()
  }

  /// The watchdog (see `TagReader.checkProgress`), measured against now.
  public func checkProgress() -> DeviceCondition? {
    checkProgress(at: .now())
  }

  /// The watchdog measured against `now`, so tests can look ahead in time.
  func checkProgress(at now: MonotonicInstant) -> DeviceCondition? {
    control.checkProgress(at: now, limit: configuration.stallLimit, connstring: configuration.connstring)
  }

  /// The last health reported.
  public var health: DeviceCondition {
    control.health
  }

  /// Stops the thread, closing the device (which releases the target and switches the field
  /// off). Waits up to 5 s for the thread; a thread stuck in libnfc is left to finish alone.
  /// Blocks: for shutdown, or off the daemon's loop thread (see `requestStop`).
  public func stop() {
    control.stop(waitingUpTo: Self.stopLimit)
  }

  /// Asks the thread to stop, close the device and end, and returns at once.
  public func requestStop() {
    control.requestStop()
  }

  /// How long `stop()` waits for the thread.
  private static let stopLimit = Duration.seconds(5)
}
