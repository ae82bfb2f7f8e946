import Glibc
import PuckCore
import PuckDevices
import PuckStorage
import PuckSystem

/// What the daemon takes from the world instead of reaching for it: environment variables, the
/// clocks and timers, the reader, the audio output and the GPIO lines. `.real` is the machine;
/// tests hand in a manual clock, a scripted reader, a recording audio output and GPIO doubles,
/// and run the whole daemon in-process (docs/DESIGN.md §4 "Time as a seam").
public struct DaemonEnvironment: Sendable {
  /// Makes a reader for a libnfc connstring (nil: the first reader found) polled at a cadence,
  /// reporting to `onEvent`.
  public typealias ReaderMaker =
    @Sendable (
      _ configuration: NFCTagReader.Configuration, _ onEvent: @escaping @Sendable (TagReaderEvent) -> Void
    ) -> any TagReader
  /// Makes a remote reader (through the MQTT broker), reporting to `onEvent`.
  public typealias RemoteReaderMaker =
    @Sendable (
      _ configuration: RemoteTagReader.Configuration, _ onEvent: @escaping @Sendable (TagReaderEvent) -> Void
    )
    -> any TagReader
  /// Makes an audio output for an ALSA device name, reporting to `onEvent`.
  public typealias AudioMaker =
    @Sendable (_ device: String, _ onEvent: @escaping @Sendable (AudioEvent) -> Void) -> any AudioOutput

  /// Runs blocking work (opening the audio device to check it) off the loop thread; its
  /// answer comes back through the loop's inbox. In-process tests run it at once, so the answer
  /// is in the inbox before the loop runs again.
  ///
  /// A detached thread of its own, not a dispatch queue: once libdispatch's global queues are
  /// used, its manager thread keeps a 1 s timer for the rest of the process's life, a periodic
  /// wake-up an idle dock must not have (docs/BENCHMARKS.md).
  public typealias OffLoop = @Sendable (_ work: @escaping @Sendable () -> Void) -> Void

  /// The process environment (`TZ`, `NOTIFY_SOCKET`, `WATCHDOG_USEC`, …).
  public var variables: [String: String]
  /// Every clock reading and timer.
  public var time: any TimeSource
  /// The GPIO lines.
  public var gpio: GPIOOpeners
  public var makeReader: ReaderMaker
  public var makeRemoteReader: RemoteReaderMaker = { configuration, onEvent in
    RemoteTagReader(configuration, onEvent: onEvent)
  }
  public var makeAudio: AudioMaker
  public var offLoop: OffLoop = { work in
    // No thread to be had: run it here rather than never answer.
    do { try SystemThread.detach(work) } catch { work() }
  }
  /// The tz database and the system zone's link (`/etc/localtime`), whose directory is
  /// watched for a zone change.
  public var zones: ZoneInfoDirectory
  /// The signals the daemon takes through a signalfd (blocked in the thread that makes the
  /// daemon, and inherited by the threads it starts). In-process tests take none and call
  /// `Daemon.reload()` for SIGHUP.
  public var signals: [Int32]

  public init(
    variables: [String: String], time: any TimeSource = SystemTimeSource(), gpio: GPIOOpeners = .real,
    makeReader: @escaping ReaderMaker = DaemonEnvironment.libnfcReader,
    makeAudio: @escaping AudioMaker = DaemonEnvironment.alsaOutput, zones: ZoneInfoDirectory? = nil,
    signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]
  ) {
    self.variables = variables
    self.time = time
    self.gpio = gpio
    self.makeReader = makeReader
    self.makeAudio = makeAudio
    self.zones = zones ?? ZoneInfoDirectory(environment: variables)
    self.signals = signals
  }

  /// The machine: real clocks, libnfc, ALSA and libgpiod.
  public static func real(variables: [String: String]) -> DaemonEnvironment {
    DaemonEnvironment(variables: variables)
  }

  /// The libnfc reader.
  public static let libnfcReader: ReaderMaker = { configuration, onEvent in
    NFCTagReader(configuration: configuration, onEvent: onEvent)
  }

  /// The ALSA ringer.
  public static let alsaOutput: AudioMaker = { device, onEvent in
    ALSARinger(device: ALSADevice(name: device), onEvent: onEvent)
  }
}

/// How the daemon opens its GPIO lines. Nil means the device's own libgpiod line; tests hand in
/// doubles, since there is no GPIO chip to test against.
public struct GPIOOpeners: Sendable {
  public var buzzer: GPIOOutputOpener?
  public var led: GPIOOutputOpener?
  public var button: GPIOInputOpener?

  public init(buzzer: GPIOOutputOpener? = nil, led: GPIOOutputOpener? = nil, button: GPIOInputOpener? = nil) {
    self.buzzer = buzzer
    self.led = led
    self.button = button
  }

  /// The real lines.
  public static let real = GPIOOpeners()
}

/// Stops a running daemon from another thread, as SIGTERM would.
public struct DaemonStopper: Sendable {
  let inbox: LoopInbox<LoopMessage>

  /// Asks the daemon to shut down cleanly; `run()` then returns.
  public func stop() {
    inbox.post(.stop)
  }
}

extension TimeSource {
  /// The wall clock as the core's `Instant` (whole seconds).
  var instant: Instant { Instant(unixSeconds: wallSeconds()) }
}
