import CLinux
import Dispatch
import Glibc
import PuckCore
import PuckDevices
import PuckStorage
import PuckSystem

/// A message from another thread (audio, reader) to the loop.
enum LoopMessage: Sendable {
  /// An event of the ringer made `generation`-th (a replaced ringer's late events are ignored).
  case audio(AudioEvent, generation: Int)
  /// The result of opening the audio device ahead of time (nil error: it opened).
  case audioCheck(device: String, error: ALSAError?)
  /// An event of the reader made `generation`-th (a replaced reader's late events are ignored).
  case reader(TagReaderEvent, generation: Int)
  /// The dock button was pressed: a bypass, as `puckctl stop`.
  case button(DockButton.Event)
  /// Stop the daemon as SIGTERM would (`DaemonStopper`).
  case stop
  /// Record the next slice of missed alarms (posted by the loop to itself, so requests, scans
  /// and the watchdog get their turn between slices).
  case recordMissed
  /// The wall clock was stepped, found while re-arming the wall timer (`ECANCELED`).
  case clockStepped
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

/// `puckd`: owns all mutable state on one event loop thread. The wake-guard machine in PuckCore
/// decides; this class performs its effects (ring, timers, files) and feeds events back.
public final class Daemon {
  var options: DaemonOptions
  /// Whether `--simulate` was given: then the reader's config is not used, at start-up or on
  /// reload.
  let simulateFlag: Bool
  let loop: EventLoop<LoopMessage>
  let zones: ZoneInfoDirectory
  let notifier: SystemdNotifier

  var config: DockConfig = .defaults
  /// A config file that did not parse: status shows it until fixed (defaults are used meanwhile,
  /// so a typo never silences the alarm).
  var configProblem: String?
  var sound: PCMSound = AlarmTone.sound
  var soundProblem: String?

  let state: StateDirectory
  /// Held for the daemon's lifetime: one daemon per state directory.
  let stateLock: StateDirectoryLock
  let history: HistoryLog<HistoryEntry>
  let pairingFile: PairingFile
  var book = AlarmBook()
  var record = EnforcementRecord()
  var machine = WakeGuardMachine()
  var pairedTag: TagUID?
  /// The unacknowledged problems of the state files, as status shows them.
  var stateProblems: [String] = []
  var pairingProblem: String?
  /// State files that could not be read: never written over while that lasts.
  var unreadableFiles = UnreadableStateFiles()
  /// Why the last history append failed, while closed wake-ups wait in the journal.
  var historyFailure: String?
  /// The occurrences whose guards closed in this run: a guards file that reads again later
  /// does not bring them back.
  var closedOccurrences: Set<AlarmOccurrence> = []
  /// Retries the held state files and the waiting history entries (CLOCK_MONOTONIC).
  let stateRetryTimer: Timer

  var zone: ZoneRules = .utc
  var zoneName = "UTC"

  /// Next alarm or retry, on CLOCK_REALTIME with CANCEL_ON_SET.
  let wallTimer: Timer
  /// The ring timeout, on CLOCK_MONOTONIC.
  let ringTimer: Timer
  /// sd_notify WATCHDOG=1, on CLOCK_MONOTONIC.
  let watchdogTimer: Timer
  let signals: SignalSource
  var server: ControlServer?
  var localtimeWatch: DirectoryWatch?

  /// The libnfc reader; nil when simulated.
  var reader: NFCTagReader?
  /// Counts the readers made, so events of a replaced one are told apart.
  var readerGeneration = 0
  var readerHealth = DeviceHealth(.reader, state: .absent, detail: "not started")
  /// Before each alarm the reader and the audio device are checked (CLOCK_REALTIME).
  let preAlarmTimer: Timer

  /// GPIO outputs and input; each reports `.absent` when its config section is missing.
  var buzzer: BuzzerDriver
  var led: StatusLED
  var button: DockButton

  let gpio: GPIOOpeners
  var audio: ALSARinger
  /// Counts the ringers made, so events of a replaced one are told apart.
  var audioGeneration = 0
  var audioHealth = DeviceHealth(.audio, state: .ok, detail: "idle")
  /// What is ringing now and why: a wake guard, or a `puckctl test` rehearsal.
  var ringing: RingIdentity?
  var pairing: PairingSession?
  var rehearsal: Rehearsal?
  var exitCode: Int32 = 0
  /// CLOCK_BOOTTIME deadlines of the retries armed by a bypass in this run, by guard ID.
  var retryDeadlines: [String: Int64] = [:]
  var lastStatusLine = ""
  /// A `.recordMissed` message is waiting in the inbox.
  var missedSliceQueued = false
  /// When a request last made the held state files be read again (CLOCK_MONOTONIC).
  var lastRequestedStateRetry: Duration?

  /// Sets up everything that can fail before the loop runs; errors here are fatal to start-up
  /// (no state directory, no socket) and the caller exits non-zero so systemd restarts it.
  public init(options: DaemonOptions, environment: [String: String], gpio: GPIOOpeners = .real) throws {
    self.options = options
    simulateFlag = options.simulate
    self.gpio = gpio
    // Block the signals before any other thread exists, so every thread inherits the mask.
    signals = try SignalSource([SIGTERM, SIGINT, SIGHUP])
    loop = try EventLoop()
    zones = ZoneInfoDirectory(environment: environment)
    notifier = SystemdNotifier(environment: environment)
    wallTimer = try Timer(.wallClock)
    ringTimer = try Timer(.monotonic)
    watchdogTimer = try Timer(.monotonic)
    preAlarmTimer = try Timer(.wallClock)
    stateRetryTimer = try Timer(.monotonic)
    state = try StateDirectory(path: options.stateDirectory)
    // Before anything reads or writes state, opens devices or touches the socket: a second
    // daemon must leave the first one's files, reader and clients alone.
    stateLock = try StateDirectoryLock(state)
    guard !controlSocketIsLive(options.socketPath) else { throw ControlSocketInUse(path: options.socketPath) }
    history = HistoryLog(directory: state)
    pairingFile = PairingFile(directory: state)
    let inbox = loop.inbox
    audio = ALSARinger(device: ALSADevice(name: "default")) { event in
      inbox.post(.audio(event, generation: 0))
    }
    // Placeholders until the config is read: no lines are requested without a section.
    buzzer = BuzzerDriver(settings: nil)
    led = StatusLED(settings: nil)
    button = DockButton(settings: nil) { _ in }
  }

  /// A handle that stops this daemon from another thread.
  public var stopper: DaemonStopper { DaemonStopper(inbox: loop.inbox) }

  /// Loads state, resumes open guards, starts listening, tells systemd, and runs until SIGTERM.
  /// Returns the process exit code.
  public func run() throws -> Int32 {
    Log.notice(
      "puckd \(ProductVersion.current) starting\(options.simulate ? " in SIMULATED mode (no reader)" : ""); "
        + "state \(options.stateDirectory), socket \(options.socketPath)")
    loadConfig(reloading: false)
    if case .simulated = config.reader.device, !options.simulate {
      // `device = simulated` in the config is as explicit as the flag.
      Log.notice("[reader] device = simulated: running without a reader")
      options.simulate = true
    }
    reloadZone()
    loadState()
    startReader()
    startGPIO()

    loop.onMessage = { [unowned self] message in self.received(message) }
    try loop.watch(signals.fd) { [unowned self] _ in
      for signal in self.signals.drain() { self.received(signal: signal) }
    }
    try loop.watch(wallTimer.fd) { [unowned self] _ in
      guard let firing = self.wallTimer.acknowledge() else { return }
      if firing == .clockStepped { self.clockStepped() }
      self.processDue()
    }
    try loop.watch(preAlarmTimer.fd) { [unowned self] _ in
      guard self.preAlarmTimer.acknowledge() == .expired else { return }
      self.reader?.checkHealth()
      self.checkAudioDevice()
    }
    try loop.watch(stateRetryTimer.fd) { [unowned self] _ in
      guard self.stateRetryTimer.acknowledge() != nil else { return }
      self.retryStateFiles()
    }
    try loop.watch(ringTimer.fd) { [unowned self] _ in
      guard self.ringTimer.acknowledge() != nil else { return }
      Log.notice("nobody stopped the ring within \(self.config.enforcement.ringTimeout); counting a bypass")
      self.handle(.ringTimeout)
    }
    watchLocaltime()
    try startWatchdog()

    // Resume what was open when the daemon last stopped (crash, kill -9, power loss), then ring
    // or record whatever fell due while it was down.
    handle(.daemonStarted)
    processDue()
    // One slice now, so a short downtime is fully recorded before READY; the rest of a long
    // one follows on the loop, with the socket answering between slices.
    recordMissedSlice()
    checkAudioDevice()

    try makeSocketDirectory()
    server = try ControlServer(
      path: options.socketPath, loop: loop,
      isPrivileged: { [unowned self] peer in self.role(of: peer) >= .member }
    ) { [unowned self] client, request in
      self.received(request, from: client)
    }
    server?.onClose = { [unowned self] client in self.clientClosed(client) }
    notifier.send("READY=1\nSTATUS=\(statusLine())")
    Log.info("listening on \(options.socketPath)")
    loop.run()
    shutdown()
    return exitCode
  }

  private func received(signal: Int32) {
    switch signal {
    case SIGHUP:
      Log.notice("SIGHUP: reloading \(options.configPath)")
      let gpioBefore = (config.buzzer, config.button, config.led)
      let readerBefore = config.reader.device
      loadConfig(reloading: true)
      if gpioBefore != (config.buzzer, config.button, config.led) { startGPIO() }
      reloadReader(from: readerBefore)
      reloadZone()
      refreshSchedule()
      checkAudioDevice()
    default:
      Log.notice("signal \(signal): shutting down; open wake-ups stay open on disk")
      loop.stop()
    }
  }

  /// Clean exit: ring stopped (PCM dropped), state flushed, guards left open on disk.
  private func shutdown() {
    notifier.send("STOPPING=1")
    audio.stop()
    buzzer.shutdown()
    led.shutdown()
    _ = button.stop()
    reader?.stop()
    _ = audio.waitUntilStopped(timeout: .seconds(2))
    saveRecord()
    server?.shutdown()
    Log.notice("puckd stopped")
  }

  private func received(_ message: LoopMessage) {
    switch message {
    case .audio(let event, let generation):
      // A replaced ringer's last words (its `.stopped`) say nothing about the current one.
      guard generation == audioGeneration else { return }
      audioEvent(event)
    case .audioCheck(let device, let error):
      guard ringing == nil, rehearsal == nil, device == config.audio.device else { return }
      if let error {
        audioHealth = DeviceHealth(.audio, state: .fault, detail: "cannot open \(device): \(error)")
        Log.error("audio: the device \(device) does not open: \(error) — an alarm would have no sound")
      } else {
        audioHealth = DeviceHealth(.audio, state: .ok, detail: "\(device) opens")
      }
      updateStatus()
    case .reader(let event, let generation):
      guard generation == readerGeneration else { return }
      readerEvent(event)
    case .stop:
      Log.notice("stop requested: shutting down; open wake-ups stay open on disk")
      loop.stop()
    case .recordMissed:
      missedSliceQueued = false
      recordMissedSlice()
    case .clockStepped:
      clockStepped()
      processDue()
    case .button(.pressed):
      Log.notice("dock button pressed")
      if rehearsal != nil {
        endRehearsal(interrupted: true)
      } else {
        handle(.bypass)
      }
    }
  }

  private func audioEvent(_ event: AudioEvent) {
    switch event {
    case .playing(let device, let rate, let channels):
      audioHealth = DeviceHealth(
        .audio, state: .ok, detail: "playing on \(device) (\(rate) Hz, \(channels) ch)")
      Log.info("audio: playing on \(device)")
    case .fault(let fault):
      audioHealth = DeviceHealth(.audio, state: .fault, detail: fault.description)
      logAudioFault(fault)
    case .stopped, .finished:
      if audioHealth.state == .ok {
        audioHealth.detail = "idle on \(config.audio.device)"
      } else {
        // The device failed during the ring that just ended: check it again now it is free.
        checkAudioDevice()
      }
    }
    updateStatus()
  }

  /// Says what is really true of a ring whose audio failed: the buzzer carries it only if one is
  /// configured and working; otherwise nobody hears anything, which is the worst state the dock
  /// can be in while a wake-up is open, and is logged as critical.
  private func logAudioFault(_ fault: AudioFault) {
    guard ringing != nil else {
      Log.error("audio: \(fault.description)")
      return
    }
    if buzzer.health.state == .ok && buzzer.isRinging {
      Log.error("audio: \(fault.description) — the buzzer still rings; audio is retried")
    } else {
      Log.critical(
        "audio: \(fault.description) — NOTHING is audible: the audio failed and no buzzer works "
          + "(\(buzzer.health.detail)); audio is retried")
    }
  }

  // MARK: - Config, zone, state

  func loadConfig(reloading: Bool) {
    do {
      config = try ConfigFile.load(options.configPath)
      configProblem = nil
    } catch {
      configProblem = "config: \(error)"
      Log.error(
        "\(error)\(reloading ? "; keeping the previous settings" : "; using defaults until it is fixed")")
      if !reloading { config = .defaults }
    }
    // Load the sound now, never at fire time; the built-in tone is always there.
    sound = AlarmTone.sound
    soundProblem = nil
    if let path = config.audio.sound {
      do {
        sound = try SoundFile.load(path: path)
      } catch {
        soundProblem = "sound file: \(error); the built-in tone will ring instead"
        Log.error(soundProblem ?? "")
      }
    }
    if audio.device.name != config.audio.device {
      replaceRinger()
    } else if ringing == nil && rehearsal == nil {
      audioHealth = DeviceHealth(.audio, state: .ok, detail: "idle on \(config.audio.device)")
    }
  }

  /// Puts a ringer on the configured `[audio] device` in place of the current one. A ring (or
  /// rehearsal) going on moves to the new device at once, at full volume (it has been ringing:
  /// the volume never drops back to the start of the ramp), so what status says plays is what
  /// plays; the old device is dropped. Events of the old ringer are ignored from here on.
  private func replaceRinger() {
    let before = audio.device.name
    let playing = ringing != nil || rehearsal != nil
    if playing { audio.stop() }
    audioGeneration += 1
    let generation = audioGeneration
    let inbox = loop.inbox
    audio = ALSARinger(device: ALSADevice(name: config.audio.device)) { event in
      inbox.post(.audio(event, generation: generation))
    }
    guard playing else {
      audioHealth = DeviceHealth(.audio, state: .ok, detail: "idle on \(config.audio.device)")
      return
    }
    Log.notice(
      "audio: the device changed from \(before) to \(config.audio.device) mid-ring; the ring moves to it")
    audioHealth = DeviceHealth(
      .audio, state: .ok, detail: "starting on \(config.audio.device) (moved from \(before))")
    audio.start(sound: sound, startVolume: 1, ramp: .zero)
  }

  /// Opens the audio device once, off the loop thread, so status can say before an alarm
  /// whether it would sound (docs/DESIGN.md D9: checked ahead, not at fire time).
  func checkAudioDevice() {
    guard ringing == nil, rehearsal == nil else { return }
    let ringer = audio
    let inbox = loop.inbox
    DispatchQueue.global().async {
      do throws(ALSAError) {
        try ringer.checkDevice()
        inbox.post(.audioCheck(device: ringer.device.name, error: nil))
      } catch {
        inbox.post(.audioCheck(device: ringer.device.name, error: error))
      }
    }
  }

  /// Re-reads the system zone from the tz database (a tzdata update or a new /etc/localtime
  /// takes effect here); keeps the previous rules if it cannot be read.
  func reloadZone() {
    do {
      zone = try zones.systemZone()
      zoneName = zones.systemZoneName() ?? zone.name
    } catch {
      Log.error("time zone: \(error); keeping \(zoneName)")
    }
  }

  /// Loads each state file on its own, the open guards first: whatever fails to read, an open
  /// wake-up rings (issue 8 item 4).
  private func loadState() {
    removeStaleTemporaryFiles()
    let loadedRecord = loadDocument(EnforcementRecord.fileName, as: EnforcementRecord.self)
    record = loadedRecord ?? EnforcementRecord()
    if loadedRecord == nil && unreadableFiles.contains(EnforcementRecord.fileName) {
      // Nothing says what was already handled: count from the start of the grace, so an alarm
      // that fell due just before this start still rings (twice, at worst: the lesser harm).
      record.scheduledThrough = now.adding(.zero - config.enforcement.missedGrace)
    }
    machine = WakeGuardMachine(guards: record.guards, pendingHistory: record.pendingHistory)
    book = loadDocument(AlarmBook.fileName, as: AlarmBook.self) ?? AlarmBook()
    loadPairing()
    // Entries journaled by a run that crashed before recording them.
    if !machine.pendingHistory.isEmpty { flushPendingHistory() }
    refreshStateProblems()
  }

  /// Re-reads the recorded state problems. Problems are only recorded while files are read
  /// (start-up, a history request) and cleared by `acknowledge`, so status uses this copy
  /// instead of reading problems.json on every update.
  func refreshStateProblems() {
    stateProblems = ((try? state.problems()) ?? []).map(\.description)
  }

  func loadPairing() {
    do {
      let loaded = try pairingFile.load()
      pairedTag = loaded.value?.uid
      pairingProblem = nil
      unreadableFiles.remove(PairingFile.name)
      logProblems(loaded.problems)
      if let tag = pairedTag { Log.info("paired tag \(tag.masked)") }
    } catch {
      pairedTag = nil
      pairingProblem = "\(error)"
      Log.error("\(error)")
      // A refused file (owner, mode, type) is replaced by pairing again, deliberately; a file
      // that could not be read may hold a good pairing and is not written over.
      if case .fileSystem = error {
        unreadableFiles.add(PairingFile.name, error: error)
        armStateRetry()
      } else {
        unreadableFiles.remove(PairingFile.name)
      }
    }
  }

  private func logProblems(_ problems: [StateProblem]) {
    for problem in problems { Log.error("state: \(problem)") }
  }

  func saveRecord() {
    record.guards = machine.guards
    record.pendingHistory = machine.pendingHistory
    guard !unreadableFiles.contains(EnforcementRecord.fileName) else {
      Log.warning(
        "open wake-ups not saved: \(EnforcementRecord.fileName) could not be read and is not written over (retried)"
      )
      return
    }
    do {
      try state.save(record, name: EnforcementRecord.fileName)
    } catch {
      Log.error("could not save open wake-ups: \(error)")
    }
  }

  func saveBook() throws(StorageError) {
    if let refusal = unreadableFiles.refusal(toWrite: AlarmBook.fileName) { throw refusal }
    try state.save(book, name: AlarmBook.fileName)
  }

  private func makeSocketDirectory() throws {
    let directory = String(
      options.socketPath[..<(options.socketPath.lastIndex(of: "/") ?? options.socketPath.startIndex)])
    guard !directory.isEmpty else { return }
    var path = ""
    for component in directory.split(separator: "/") {
      path += "/" + component
      do throws(SystemError) {
        try systemCall("mkdir \(path)") { mkdir(path, 0o755) }
      } catch {
        if error.code != EEXIST { throw error }
      }
    }
  }

  private func watchLocaltime() {
    // /etc/localtime is replaced (not written) by timedatectl: watch the directory for it.
    guard let watch = try? DirectoryWatch(directory: "/etc") else { return }
    localtimeWatch = watch
    try? loop.watch(watch.fd) { [unowned self] _ in
      let changed = !watch.changedNames().isDisjoint(with: ["localtime", "timezone"])
      if changed {
        let before = self.zoneName
        self.reloadZone()
        Log.notice("time zone changed (\(before) → \(self.zoneName)); recomputing alarms")
        self.refreshSchedule()
      }
    }
  }

  private func startWatchdog() throws {
    guard let interval = notifier.watchdogInterval else { return }
    try watchdogTimer.arm(after: interval)
    try loop.watch(watchdogTimer.fd) { [unowned self] _ in
      guard self.watchdogTimer.acknowledge() != nil else { return }
      self.notifier.send("WATCHDOG=1")
      try? self.watchdogTimer.arm(after: interval)
      // A reader thread stuck inside libnfc is found here and reported as a fault.
      _ = self.reader?.checkProgress()
    }
  }
}

extension AlarmBook {
  /// Its file in the state directory.
  static let fileName = "alarms.json"
}

extension EnforcementRecord {
  /// Its file in the state directory.
  static let fileName = "guards.json"
}
