import Glibc
import PuckCore
import PuckDevices
import PuckStorage
import PuckSystem

/// `puckd`, the composition root: builds the components, wires them, and runs the loop that
/// owns them all (docs/DESIGN.md §1, §2). Read it as the table of contents:
///
/// - `Settings`: options, config, sound, zone.
/// - State: `StateFiles` (the directory, its lock, held files), `PairingStore`, `AlarmStore`,
///   `GuardsFile`, `HistoryJournal`, `StateRetry`.
/// - Enforcement: `Enforcement` (the wake-guard machine and its effects), `ScheduleKeeper`
///   (what falls due, the timers), `MissedRecorder` (the missed backlog).
/// - Devices: `Ringer` (audio and buzzer), `Readers` (libnfc or simulated), `DockLines` (GPIO).
/// - Control: `ControlServer` (the socket), `RequestRouter`, `PairingFlow`, `RehearsalFlow`.
/// - `StatusReporter`: status, the alarm list, `STATUS=`, the LED; `PreflightCheck`; `Watchdog`.
/// - `RemoteReaders` (reader nodes over MQTT) and `HomeAssistantBridge` (MQTT discovery).
public final class Daemon {
  private let environment: DaemonEnvironment
  private let loop: EventLoop<LoopMessage>
  private let signals: SignalSource
  private let notifier: SystemdNotifier
  private let watchdog: Watchdog
  private let settings: Settings
  private let state: DockState
  private let lines: DockLines
  private let ringer: Ringer
  private let readers: Readers
  private let remoteReaders: RemoteReaders
  private let homeAssistant: HomeAssistantBridge
  private let enforcement: Enforcement
  private let missed: MissedRecorder
  private let schedule: ScheduleKeeper
  private let retry: StateRetry
  private let status: StatusReporter
  private let preflight: PreflightCheck
  private let awake: AwakeCheck
  private let pairingFlow: PairingFlow
  private let rehearsal: RehearsalFlow
  private let overrides: OverrideFlow
  private let router: RequestRouter
  private var server: ControlServer?

  /// Sets up everything that can fail before the loop runs; errors here are fatal to start-up
  /// (no state directory, no socket) and the caller exits non-zero so systemd restarts it.
  public init(options: DaemonOptions, environment: DaemonEnvironment) throws {
    self.environment = environment
    let time = environment.time
    // A peer that went away must be an EPIPE, never a SIGPIPE that ends the daemon: the log's
    // reader (journald restarted, a closed terminal), a client, a library's socket.
    signal(SIGPIPE, SIG_IGN)
    // Block the signals before any other thread exists, so every thread inherits the mask.
    signals = try SignalSource(environment.signals)
    loop = try EventLoop()
    notifier = SystemdNotifier(environment: environment.variables)
    watchdog = try Watchdog(time: time, notifier: notifier)
    settings = Settings(options: options, zones: environment.zones)
    // Before anything reads or writes state, opens devices or touches the socket: a second
    // daemon must leave the first one's files, reader and clients alone.
    state = try DockState(path: options.stateDirectory) { time.instant }
    guard !controlSocketIsLive(options.socketPath) else { throw ControlSocketInUse(path: options.socketPath) }
    let inbox = loop.inbox
    lines = DockLines(gpio: environment.gpio) { event in inbox.post(.button(event)) }
    ringer = Ringer(
      settings: settings, lines: lines, inbox: inbox, makeAudio: environment.makeAudio,
      offLoop: environment.offLoop)
    readers = Readers(settings: settings, inbox: inbox, makeReader: environment.makeReader)
    let dock = DockContext(time: time, loop: loop, settings: settings, state: state)
    remoteReaders = RemoteReaders(dock: dock, makeRemote: environment.makeRemoteReader)
    homeAssistant = HomeAssistantBridge(dock: dock)
    enforcement = try Enforcement(dock: dock, ringer: ringer, lines: lines)
    missed = MissedRecorder(dock: dock)
    awake = try AwakeCheck(dock: dock, enforcement: enforcement, lines: lines)
    schedule = try ScheduleKeeper(dock: dock, enforcement: enforcement, missed: missed)
    retry = try StateRetry(dock: dock, enforcement: enforcement, schedule: schedule, missed: missed)
    overrides = OverrideFlow(dock: dock, enforcement: enforcement)
    preflight = try PreflightCheck(
      dock: dock, readers: readers, remoteReaders: remoteReaders, ringer: ringer, lines: lines,
      schedule: schedule)
    status = StatusReporter(
      dock: dock, enforcement: enforcement, schedule: schedule, ringer: ringer, readers: readers,
      remoteReaders: remoteReaders, lines: lines, overrides: overrides, preflight: preflight, awake: awake,
      notifier: notifier)
    pairingFlow = PairingFlow(dock: dock, enforcement: enforcement)
    rehearsal = RehearsalFlow(dock: dock, ringer: ringer, readers: readers, status: status)
    router = RequestRouter(
      dock: dock, enforcement: enforcement, schedule: schedule, retry: retry, status: status,
      readers: readers, remoteReaders: remoteReaders, pairing: pairingFlow, rehearsal: rehearsal,
      overrides: overrides, preflight: preflight, awake: awake)
    wire()
  }

  /// The convenience form: the real machine, with GPIO lines from `gpio`.
  public convenience init(options: DaemonOptions, environment: [String: String], gpio: GPIOOpeners = .real)
    throws
  {
    var real = DaemonEnvironment.real(variables: environment)
    real.gpio = gpio
    try self.init(options: options, environment: real)
  }

  /// The back edges between components: each is told whom to notify, never handed the others.
  private func wire() {
    state.files.onHeld = { [unowned self] in self.retry.arm() }
    ringer.onChange = { [unowned self] in
      self.preflight.somethingChanged()
      self.status.update()
    }
    readers.onChange = { [unowned self] in
      self.preflight.somethingChanged()
      self.status.update()
    }
    readers.wakeUpIsOpen = { [unowned self] in self.enforcement.isOpen }
    readers.onScan = { [unowned self] uid, fresh in
      self.homeAssistant.tagScanned(uid, reader: "dock")
      self.tagScanned(uid, fresh: fresh, reader: "dock")
    }
    remoteReaders.onChange = { [unowned self] in
      self.preflight.somethingChanged()
      self.status.update()
      self.homeAssistant.readersChanged(self.scannerNames)
    }
    remoteReaders.wakeUpIsOpen = { [unowned self] in self.enforcement.isOpen }
    remoteReaders.onScan = { [unowned self] uid, fresh, reader in
      self.homeAssistant.tagScanned(uid, reader: reader)
      self.tagScanned(uid, fresh: fresh, reader: reader)
    }
    status.onUpdate = { [unowned self] status in self.homeAssistant.statusChanged(status) }
    enforcement.onEvent = { [unowned self] event in self.homeAssistant.event(event) }
    homeAssistant.onBypass = { [unowned self] in
      // As the dock button: it silences and re-arms; it never ends a wake-up.
      if self.enforcement.machine.isRinging { self.enforcement.handle(.bypass) }
    }
    router.onScan = { [unowned self] uid, fresh in self.tagScanned(uid, fresh: fresh, reader: "simulated") }
    enforcement.willRing = { [unowned self] in self.rehearsal.interrupt() }
    rehearsal.onChange = { [unowned self] in self.updateReaderPolling() }
    enforcement.afterEvent = { [unowned self] changed in
      // Pairing is refused while a wake-up is open (docs/DESIGN.md P3).
      self.pairingFlow.wakeUpOpened()
      self.overrides.wakeUpChanged()
      if changed { self.schedule.refresh() }
    }
    enforcement.onJournalChanged = { [unowned self] in self.retry.arm() }
    enforcement.onHistory = { [unowned self] entry in self.awake.recorded(entry) }
    awake.onChange = { [unowned self] in self.status.update() }
    missed.save = { [unowned self] in self.enforcement.save() }
    missed.onFailure = { [unowned self] in self.retry.arm() }
    missed.onRecorded = { [unowned self] in self.status.update() }
    schedule.onRefresh = { [unowned self] in
      self.updateReaderPolling()
      self.status.update()
    }
    schedule.checkDue = { [unowned self] in self.preflight.run(.beforeAlarm) }
    preflight.onFinished = { [unowned self] in self.status.update() }
    retry.onRetried = { [unowned self] in self.status.update() }
    overrides.onChange = { [unowned self] in self.status.update() }
    pairingFlow.onChange = { [unowned self] in
      self.preflight.somethingChanged()
      self.updateReaderPolling()
      self.status.update()
    }
    // A reader thread stuck inside libnfc is found at each tick and reported as a fault.
    watchdog.onTick = { [unowned self] in self.readers.refreshProgress() }
  }

  /// A handle that stops this daemon from another thread.
  public var stopper: DaemonStopper { DaemonStopper(inbox: loop.inbox) }

  /// Loads state, resumes open guards, starts listening, tells systemd, and runs until SIGTERM.
  /// Returns the process exit code.
  public func run() throws -> Int32 {
    try start()
    loop.run()
    shutdown()
    return DaemonExitCode.success.rawValue
  }

  /// Everything `run` does before the loop runs: after it, the daemon is ready (`READY=1`).
  /// In-process tests call it, then drive the loop with `runUntilIdle` and end with `finish`.
  public func start() throws {
    let options = settings.options
    Log.notice(
      "puckd \(ProductVersion.current) starting\(options.simulate ? " in SIMULATED mode (no reader)" : ""); "
        + "state \(options.stateDirectory), socket \(options.socketPath)")
    settings.load(reloading: false)
    ringer.applySettings()
    settings.reloadZone()
    state.load(now: environment.time.instant, grace: settings.config.enforcement.missedGrace)
    enforcement.load()
    readers.start()
    remoteReaders.start()
    homeAssistant.start(readers: scannerNames)
    lines.start(settings.config)

    loop.onMessage = { [unowned self] message in self.received(message) }
    try loop.watch(signals.fd) { [unowned self] _ in
      for signal in self.signals.drain() { self.received(signal: signal) }
    }
    try schedule.watch(on: loop)
    try enforcement.watch(on: loop)
    try retry.watch(on: loop)
    settings.watchZone(on: loop) { [unowned self] in self.schedule.refresh() }
    try watchdog.watch(on: loop)
    try preflight.watch(on: loop)
    try awake.watch(on: loop)

    // Resume what was open when the daemon last stopped (crash, kill -9, power loss), then ring
    // or record whatever fell due while it was down.
    enforcement.handle(.daemonStarted)
    awake.resume()
    schedule.processDue()
    // One slice now, so a short downtime is fully recorded before READY; the rest of a long
    // one follows on the loop, with the socket answering between slices.
    missed.recordSlice()

    server = try ControlServer(
      path: options.socketPath, time: environment.time, loop: loop,
      isPrivileged: { [unowned self] peer in self.router.role(of: peer) >= .member }
    ) { [unowned self] client, request in
      self.router.received(request, from: client)
    }
    server?.onClose = { [unowned self] client in
      self.pairingFlow.clientClosed(client)
      self.rehearsal.clientClosed(client)
      self.overrides.clientClosed(client)
    }
    status.ready()
    Log.info("listening on \(options.socketPath)")
    // After READY: it waits up to a few seconds for the devices' answers on the loop.
    preflight.run(.start)
  }

  /// Runs every handler that is ready, and what they make ready, without sleeping (tests with a
  /// manual clock; see `EventLoop.runUntilIdle`).
  public func runUntilIdle() throws(EventLoopBusy) {
    _ = try loop.runUntilIdle()
  }

  /// The clean exit `run` ends with, for a daemon driven by `runUntilIdle`.
  public func finish() {
    shutdown()
  }

  /// A tag from the reader or a simulated scan: to pairing if it is waiting, else to the guard;
  /// then a paired puck's `lastSeen` moves (saved after the ring was handled, never before).
  private func tagScanned(_ uid: TagUID, fresh: Bool, reader: String) {
    if pairingFlow.isWaiting {
      pairingFlow.scanned(uid, fresh: fresh)
      return
    } else if rehearsal.isWaitingForScan {
      rehearsal.scanned(uid, fresh: fresh)
    } else {
      enforcement.tagScanned(uid, fresh: fresh, reader: reader)
    }
    state.pairing.noteSeen(uid, at: environment.time.instant)
  }

  /// The readers Home Assistant sees as tag scanners: the dock's own (`dock`) and the remote ones.
  private var scannerNames: [String] {
    (settings.config.reader.device == .none || settings.simulated ? [] : ["dock"]) + remoteReaders.names
  }

  /// The reader polls (RF field on) only while a wake-up is open or a pairing waits for a tag.
  private func updateReaderPolling() {
    let wanted = enforcement.isOpen || pairingFlow.isWaiting || rehearsal.isWaitingForScan
    readers.setPolling(wanted)
    remoteReaders.setPolling(wanted)
  }

  private func received(signal: Int32) {
    switch signal {
    case SIGHUP:
      reload()
    default:
      Log.notice("signal \(signal): shutting down; open wake-ups stay open on disk")
      loop.stop()
    }
  }

  /// SIGHUP: reads the config again and applies what changed (devices, reader, zone, schedule).
  public func reload() {
    Log.notice("SIGHUP: reloading \(settings.options.configPath)")
    let before = settings.config
    settings.load(reloading: true)
    ringer.applySettings()
    let config = settings.config
    if (before.buzzer, before.button, before.led) != (config.buzzer, config.button, config.led) {
      lines.start(config)
      ringer.linesReplaced()
    }
    readers.reload(from: before.reader)
    if before.mqtt != config.mqtt {
      Log.notice("SIGHUP: [mqtt] changed; reconnecting the remote readers")
      remoteReaders.start()
      updateReaderPolling()
    }
    if before.mqtt != config.mqtt || before.homeAssistant != config.homeAssistant {
      homeAssistant.start(readers: scannerNames)
    }
    settings.reloadZone()
    schedule.refresh()
    ringer.checkDevice()
  }

  private func received(_ message: LoopMessage) {
    switch message {
    case .audio(let event, let generation): ringer.received(event, generation: generation)
    case .audioCheck(let device, let error): ringer.deviceChecked(device, error: error)
    case .homeAssistant(let command): homeAssistant.received(command)
    case .reader(let event, let generation): readers.received(event, generation: generation)
    case .remoteReader(let name, let event, let generation):
      remoteReaders.received(event, from: name, generation: generation)
    case .stop:
      Log.notice("stop requested: shutting down; open wake-ups stay open on disk")
      loop.stop()
    case .recordMissed: missed.sliceDue()
    case .clockStepped:
      enforcement.clockStepped()
      schedule.processDue()
    case .button(.pressed):
      Log.notice("dock button pressed")
      // A ring first: the button silences it. Else it may answer the wake-up check.
      if rehearsal.isRunning {
        rehearsal.interrupt()
      } else if enforcement.machine.isRinging || !awake.confirm() {
        enforcement.handle(.bypass)
      }
    }
  }

  /// Clean exit: ring stopped (PCM dropped), state flushed, guards left open on disk.
  private func shutdown() {
    notifier.send("STOPPING=1")
    ringer.stopAudio()
    lines.shutdown()
    readers.stop()
    remoteReaders.stop()
    homeAssistant.stop()
    ringer.waitUntilStopped(timeout: .seconds(2))
    enforcement.save()
    server?.shutdown()
    state.files.releaseLock()
    Log.notice("puckd stopped")
  }
}
