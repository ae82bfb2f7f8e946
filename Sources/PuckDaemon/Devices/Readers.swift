import PuckCore
import PuckDevices
import PuckSystem

/// Where scans come from: the configured libnfc reader on its own thread, or nothing but
/// `puckctl scan` when simulated. A reader that is missing is never replaced by simulation: it
/// is retried and reported. Readers on other machines join here (issue 11).
final class Readers {
  private let settings: Settings
  private let changes: DockChanges
  private let inbox: LoopInbox<LoopMessage>
  private let makeReader: DaemonEnvironment.ReaderMaker
  /// The reader; nil when simulated.
  private var reader: (any TagReader)?
  /// Counts the readers made, so events of a replaced one are told apart.
  private var generation = 0
  /// Nil with `[reader] device = none` (only remote readers).
  private(set) var health: DeviceHealth? = DeviceHealth(.reader, state: .absent, detail: "not started")
  /// How many health events the current reader has sent (the pre-flight check waits for one).
  private(set) var healthReports = 0
  /// Whether polling is wanted (kept across a reader replaced on reload).
  private var polling = false
  /// A tag was scanned (fresh: presented, not lying there).
  @Wired("Readers.onScan") var onScan: (TagUID, Bool) -> Void
  /// Whether a wake-up is open, for what a fault's log line says.
  @Wired("Readers.wakeUpIsOpen") var wakeUpIsOpen: () -> Bool

  init(
    settings: Settings, changes: DockChanges, inbox: LoopInbox<LoopMessage>,
    makeReader: @escaping DaemonEnvironment.ReaderMaker
  ) {
    self.settings = settings
    self.changes = changes
    self.inbox = inbox
    self.makeReader = makeReader
  }

  /// Opens the configured reader on its own thread, in place of `previous` (which is stopped
  /// off the loop thread: the new one opens once the old one has closed).
  func start(replacing previous: (any TagReader)? = nil) {
    guard !settings.simulated else {
      health = DeviceHealth(
        .reader, state: .simulated, detail: "no reader; scans come from 'puckctl scan UID'")
      return
    }
    let device = settings.config.reader.device
    let connstring: String?
    switch device {
    case .none:
      previous?.requestStop()
      reader = nil
      health = nil
      return
    case .auto, .simulated: connstring = nil
    case .connstring(let text): connstring = text
    }
    generation += 1
    let current = generation
    let inbox = self.inbox
    let configuration = NFCTagReader.Configuration(
      connstring: connstring, pollInterval: settings.config.reader.pollInterval)
    let made = makeReader(configuration) { event in inbox.post(.reader(event, generation: current)) }
    health = DeviceHealth(.reader, state: .fault, detail: "opening \(device)…")
    reader = made
    made.start(after: previous)
  }

  /// Applies `[reader]` after SIGHUP. Simulation and a real reader are chosen at
  /// start-up only: switching on a reload would either drop the protection of a real reader
  /// for simulated scans or start enforcing halfway through with state (pairing, baselines)
  /// made for the other mode. So a reload that asks to switch keeps the current mode, logs an
  /// error and shows a config problem in status until puckd is restarted or the config is put
  /// back. A new connstring or `poll_interval` for the real reader reopens it.
  func reload(from beforeSettings: ReaderSettings) {
    let before = beforeSettings.device
    let device = settings.config.reader.device
    guard !settings.simulateFlag else {
      // As at start-up: `--simulate` wins over whatever `[reader] device` says.
      if before != device { Log.notice("SIGHUP: [reader] device is not used: puckd runs with --simulate") }
      return
    }
    let wantsSimulated = device == .simulated
    if wantsSimulated != settings.simulated {
      let problem =
        settings.simulated
        ? "config: [reader] device = \(device) asks for a real reader, but this puckd runs "
          + "SIMULATED (started with device = simulated); restart puckd to use the reader — until "
          + "then nothing enforces the wake-up"
        : "config: [reader] device = simulated cannot take effect on a reload; the real reader "
          + "(\(before)) stays — restart puckd to run simulated"
      settings.addConfigProblem(problem)
      Log.error("SIGHUP: \(problem) (restart puckd to switch modes)")
      return
    }
    guard beforeSettings != settings.config.reader, !settings.simulated else { return }
    if before != device {
      Log.notice("SIGHUP: [reader] device changed from \(before) to \(device); reopening")
    } else {
      Log.notice(
        "SIGHUP: [reader] poll_interval is now \(settings.config.reader.pollInterval.configText); reopening")
    }
    let enabled = polling
    start(replacing: reader)
    setPolling(enabled)
  }

  /// Polls (RF field on) only while a wake-up is open or a pairing waits for a tag.
  func setPolling(_ enabled: Bool) {
    polling = enabled
    reader?.setEnabled(enabled)
  }

  /// An event of the reader made `generation`-th.
  func received(_ event: TagReaderEvent, generation: Int) {
    guard generation == self.generation else { return }
    let reported = ReaderEventLog.record(event, remote: nil, lastReported: health, wakeUpIsOpen: wakeUpIsOpen)
    if case .scanned(let uid, let fresh) = event { onScan(uid, fresh) }
    if let reported {
      health = reported
      healthReports += 1
      changes.mark([.devices, .status])
    }
  }

  /// Asks the reader whether its thread is stuck inside libnfc and takes the answer at once,
  /// so a status or test reply about to be built already shows the stall; the watchdog tick
  /// asks too. The reader also posts the stall as a health event, which then changes nothing.
  func refreshProgress() {
    if let stalled = reader?.checkProgress() { health = DeviceHealth(.reader, stalled) }
  }

  /// Asks for a health report (the pre-flight check); false when there is no reader to ask.
  /// The answer arrives as a health event, which counts in `healthReports`.
  @discardableResult
  func checkHealth() -> Bool {
    reader?.checkHealth()
    return reader != nil
  }

  /// Stops the reader's thread (shutdown).
  func stop() {
    reader?.stop()
  }
}
