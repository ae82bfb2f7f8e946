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
/// - Devices: `Ringer` (audio and buzzer), `Readers` (libnfc or simulated), `DockLines` (GPIO),
///   handed together as `DockDevices`.
/// - Control: `ControlServer` (the socket), `RequestRouter`, `PairingFlow`, `RehearsalFlow`,
///   `OverrideFlow` (the three hold their client in a `ClientSession`), `AwakeCheck`; the flows
///   are handed together as `ControlFlows`.
/// - `StatusReporter`: status, the alarm list, `STATUS=`, the LED; `PreflightCheck`; `Watchdog`.
/// - `RemoteReaders` (reader nodes over MQTT) and `HomeAssistantBridge` (MQTT discovery).
public final class Daemon {
  let environment: DaemonEnvironment
  let loop: EventLoop<LoopMessage>
  /// What changed in the current loop turn (`TurnEnd` acts on it).
  let changes = DockChanges()
  let signals: SignalSource
  let notifier: SystemdNotifier
  let watchdog: Watchdog
  let settings: Settings
  let state: DockState
  let lines: DockLines
  let ringer: Ringer
  let readers: Readers
  let remoteReaders: RemoteReaders
  let homeAssistant: HomeAssistantBridge
  let lock: LockWindow
  let enforcement: Enforcement
  let missed: MissedRecorder
  let schedule: ScheduleKeeper
  let retry: StateRetry
  let status: StatusReporter
  let preflight: PreflightCheck
  let awake: AwakeCheck
  let pairingFlow: PairingFlow
  let rehearsal: RehearsalFlow
  let overrides: OverrideFlow
  let router: RequestRouter
  let scans: ScanRouter
  let turnEnd: TurnEnd
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
    loop = try EventLoop(time: time)
    notifier = SystemdNotifier(environment: environment.variables)
    watchdog = try Watchdog(loop: loop, notifier: notifier)
    settings = Settings(options: options, zones: environment.zones)
    // Before anything reads or writes state, opens devices or touches the socket: a second
    // daemon must leave the first one's files, reader and clients alone.
    state = try DockState(path: options.stateDirectory) { time.instant }
    guard !controlSocketIsLive(options.socketPath) else { throw ControlSocketInUse(path: options.socketPath) }
    let inbox = loop.inbox
    let dock = DockContext(
      time: time, loop: loop, settings: settings, state: state, changes: changes, notifier: notifier)
    lines = DockLines(gpio: environment.gpio, configFile: options.configPath) { event in
      inbox.post(.button(event))
    }
    ringer = try Ringer(
      settings: settings, changes: changes, lines: lines, loop: loop,
      makeAudio: environment.makeAudio,
      offLoop: environment.offLoop)
    readers = Readers(settings: settings, changes: changes, inbox: inbox, makeReader: environment.makeReader)
    remoteReaders = RemoteReaders(dock: dock, makeRemote: environment.makeRemoteReader)
    let devices = DockDevices(ringer: ringer, readers: readers, remoteReaders: remoteReaders, lines: lines)
    homeAssistant = HomeAssistantBridge(dock: dock)
    lock = try LockWindow(dock: dock)
    enforcement = try Enforcement(dock: dock, devices: devices, homeAssistant: homeAssistant, lock: lock)
    missed = MissedRecorder(dock: dock, enforcement: enforcement)
    awake = try AwakeCheck(dock: dock, enforcement: enforcement, ringer: ringer)
    schedule = try ScheduleKeeper(dock: dock, enforcement: enforcement, missed: missed, lock: lock)
    retry = try StateRetry(dock: dock, enforcement: enforcement, schedule: schedule, missed: missed)
    overrides = OverrideFlow(dock: dock, enforcement: enforcement, lock: lock)
    preflight = try PreflightCheck(dock: dock, devices: devices, schedule: schedule)
    pairingFlow = PairingFlow(dock: dock, lock: lock) { [enforcement] in enforcement.isOpen }
    rehearsal = RehearsalFlow(dock: dock, devices: devices)
    let flows = ControlFlows(
      pairing: pairingFlow, rehearsal: rehearsal, overrides: overrides, preflight: preflight, awake: awake)
    status = StatusReporter(
      dock: dock, enforcement: enforcement, schedule: schedule, devices: devices, flows: flows,
      homeAssistant: homeAssistant, lock: lock)
    scans = ScanRouter(dock: dock, enforcement: enforcement, flows: flows, homeAssistant: homeAssistant)
    turnEnd = TurnEnd(
      dock: dock, devices: devices, enforcement: enforcement, flows: flows, status: status,
      homeAssistant: homeAssistant, lock: lock)
    router = RequestRouter(
      dock: dock, enforcement: enforcement, schedule: schedule, retry: retry, status: status,
      devices: devices, flows: flows, lock: lock)
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
    homeAssistant.start(readers: turnEnd.scannerNames)
    lines.start(settings.config)

    loop.onMessage = { [unowned self] message in self.received(message) }
    loop.atEndOfEachTurn { [unowned turnEnd] in turnEnd.run() }
    try loop.watch(signals.fd) { [unowned self] _ in
      for signal in self.signals.drain() { self.received(signal: signal) }
    }
    settings.watchZone(on: loop) { [unowned self] in self.schedule.refresh() }
    try watchdog.start()

    // Resume what was open when the daemon last stopped (crash, kill -9, power loss), then ring
    // or record whatever fell due while it was down.
    enforcement.handle(.daemonStarted)
    awake.resume()
    schedule.processDue()
    // One slice now, so a short downtime is fully recorded before READY; the rest of a long
    // one follows on the loop, with the socket answering between slices.
    missed.recordSlice()

    server = try ControlServer(
      path: options.socketPath, loop: loop,
      isPrivileged: { [unowned self] peer in self.router.role(of: peer) >= .web }
    ) { [unowned self] client, request in
      self.router.received(request, from: client)
    }
    server?.onClose = { [unowned self] client in self.router.flows.clientClosed(client) }
    status.ready()
    Log.info("listening on \(options.socketPath)")
    // After READY: it waits up to a few seconds for the devices' answers on the loop.
    preflight.run(.start)
    // What start-up marked (polling for a wake-up it resumed, the LED), before the loop sleeps.
    turnEnd.run()
  }

  /// Runs every handler that is ready, and what they make ready, without sleeping (tests with a
  /// manual clock; see `EventLoop.runUntilIdle`).
  public func runUntilIdle() throws(EventLoopBusy) {
    _ = try loop.runUntilIdle()
  }

  /// How many times status was rendered (the LED, `STATUS=`, Home Assistant's state): at most
  /// once per loop turn. Tests count it.
  public var statusRenders: Int { status.renders }

  /// How many times `guards.json` was written by this daemon. Tests count it.
  public var guardsSaves: Int { state.guardsFile.saves }

  /// The clean exit `run` ends with, for a daemon driven by `runUntilIdle`.
  public func finish() {
    shutdown()
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
