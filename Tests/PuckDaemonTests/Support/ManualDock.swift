import Foundation
import Glibc
import PuckCore
import PuckDaemon
import PuckStorage
import PuckSystem

/// The whole daemon in the test's thread, on a manual clock: real components, real state files
/// in a temporary directory, a real control socket, the loop driven by `runUntilIdle` instead
/// of sleeping. The reader is scripted, the audio recorded; the zone comes from a link the test
/// can replace (as timedatectl replaces /etc/localtime). Time passes only when the test says.
final class ManualDock {
  let directory: String
  let clock: ManualClock
  let bench = DeviceBench()
  /// The GPIO lines (set before `start`): none unless the config has their sections.
  var gpio = GPIOOpeners()
  /// The daemon's environment variables (set before `start`): `NOTIFY_SOCKET`, say.
  var variables: [String: String] = [:]
  private(set) var daemon: Daemon?
  private let simulate: Bool

  var socket: String { directory + "/puckd.sock" }
  let stateDirectory: String
  private var localtime: String { directory + "/etc/localtime" }

  /// A dock whose wall clock reads `wall` (ISO 8601, UTC) in `zone`, with `config` as its
  /// config file. The paired tag is `puck` unless `paired` is false.
  init(
    at wall: String = "2026-03-02T06:00:00Z", zone: String = "UTC", config: String = "", paired: Bool = true,
    simulate: Bool = false, stateDirectory: String? = nil
  ) throws {
    puck = try TagUID(parsing: "04:A2:3B:11:22:33:44")
    stranger = try TagUID(parsing: "DE:AD:BE:EF")
    directory = NSTemporaryDirectory() + "manual-dock-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: directory + "/etc", withIntermediateDirectories: true)
    self.stateDirectory = stateDirectory ?? directory + "/state"
    try config.write(toFile: directory + "/puckd.conf", atomically: true, encoding: .utf8)
    clock = ManualClock(wall: .seconds(try Self.unixSeconds(wall)))
    self.simulate = simulate
    try setZone(zone)
    if paired {
      try PairingFile(directory: StateDirectory(path: self.stateDirectory)).save(
        Pairing(pucks: [PairedTag(uid: puck, pairedAt: Instant(unixSeconds: 1_700_000_000))]))
    }
  }

  deinit {
    daemon?.finish()
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// The paired tag, and one that is not.
  let puck: TagUID
  let stranger: TagUID

  static func unixSeconds(_ iso: String) throws -> Int64 {
    guard let date = ISO8601DateFormatter().date(from: iso) else { throw CocoaError(.formatting) }
    return Int64(date.timeIntervalSince1970)
  }

  /// The wall clock now, as an `Instant`.
  var now: Instant { Instant(unixSeconds: clock.wallSeconds()) }

  /// Points the zone link at `zone` (atomically, by rename, as timedatectl does).
  func setZone(_ zone: String) throws {
    let temporary = localtime + ".new"
    unlink(temporary)
    guard symlink("/usr/share/zoneinfo/" + zone, temporary) == 0, rename(temporary, localtime) == 0 else {
      throw CocoaError(.fileWriteUnknown)
    }
  }

  /// Makes the daemon and runs its start-up (state, catch-up, socket), then settles.
  func start() throws {
    let options = DaemonOptions(
      configPath: directory + "/puckd.conf", stateDirectory: stateDirectory, socketPath: socket,
      simulate: simulate)
    let bench = self.bench
    let environment = DaemonEnvironment(
      variables: variables, time: clock,
      makeReader: { bench.makeReader($0, $1) }, makeAudio: { bench.makeAudio($0, $1) },
      zones: ZoneInfoDirectory(root: "/usr/share/zoneinfo", localtimePath: localtime), signals: [])
    var withRemotes = environment
    withRemotes.makeRemoteReader = { bench.makeRemoteReader($0, $1) }
    withRemotes.offLoop = { work in work() }
    withRemotes.gpio = gpio
    // After a restart in this process: a process another test spawns in parallel holds a copy
    // of the lock's descriptor between its fork and its exec, so the lock may be taken for an
    // instant (StateDirectoryLockTests says more).
    var attempt = 0
    var made: Daemon
    while true {
      do {
        made = try Daemon(options: options, environment: withRemotes)
        break
      } catch let error as StorageError {
        guard case .inUse = error, attempt < 200 else { throw error }
        attempt += 1
        usleep(10_000)
      }
    }
    daemon = made
    try made.start()
    try settle()
  }

  /// A started dock (06:00, Monday 2 March 2026) whose 06:01 alarm has just fallen due and
  /// rings: where most wake-up tests begin.
  static func ringing(config: String = "") throws -> ManualDock {
    let dock = try ManualDock(config: config)
    try dock.start()
    try dock.addAlarm(6, 1)
    try dock.advance(.seconds(60))
    return dock
  }

  /// `puckctl stop` once the ring has been heard for `heard`: from the socket a stop counts
  /// only after `stop_after` (20 s by default) of ring, and buys at most half the ring heard
  /// of quiet (docs/DESIGN.md W18).
  @discardableResult
  func stopOnceHeard(_ heard: Duration = .seconds(20)) throws -> ControlReply {
    try advance(heard)
    return try request("stop")
  }

  /// Stops the daemon as SIGTERM would (guards stay open on disk).
  func stop() {
    daemon?.finish()
    daemon = nil
  }

  /// Runs whatever is ready on the loop.
  func settle() throws {
    try daemon?.runUntilIdle()
  }

  /// Lets `duration` pass, each timer's handler running at its own deadline.
  func advance(_ duration: Duration) throws {
    try clock.advance(by: duration) { () throws(EventLoopBusy) in try self.daemon?.runUntilIdle() }
  }

  /// Lets time pass until the wall clock reads `iso`.
  func advance(to iso: String) throws {
    try advance(.seconds(try Self.unixSeconds(iso) - clock.wallSeconds()))
  }

  /// Steps the wall clock (settimeofday): monotonic and boot time do not move.
  func stepWall(by offset: Duration) throws {
    clock.stepWall(by: offset)
    try settle()
  }

  /// One request over the control socket; the loop is run until the final reply is in.
  @discardableResult
  func request(_ words: String...) throws -> ControlReply {
    try request(try ControlRequest(commandLine: words))
  }

  /// One request as built, not as typed (what puckctl would refuse to send).
  @discardableResult
  func request(_ command: ControlRequest) throws -> ControlReply {
    let connection = try open(command)
    for _ in 0..<50 {
      if let reply = try connection.replies().last(where: { $0.ok != nil }) { return reply }
    }
    throw CocoaError(.fileReadUnknown)
  }

  /// Sends a request, lets the daemon take it, and leaves the connection open (a pairing, a
  /// rehearsal); its replies are read with `Connection.replies()`.
  func open(_ words: String...) throws -> Connection {
    try open(try ControlRequest(commandLine: words))
  }

  /// `open` of a request as built.
  func open(_ command: ControlRequest) throws -> Connection {
    let connection = try Connection(path: socket, dock: self)
    try connection.send(command)
    // The daemon takes the request now, at this instant of the clock.
    try settle()
    return connection
  }

  func status() throws -> DockStatus {
    guard let status = try request("status").status else { throw CocoaError(.fileReadCorruptFile) }
    return status
  }

  func guards() throws -> [GuardView] { try status().guards }

  /// Adds an alarm at `time` (local) once on `date` (local), or weekly on `days`.
  @discardableResult
  func addAlarm(_ hour: Int, _ minute: Int, on date: LocalDate? = nil, days: Set<Weekday>? = nil) throws
    -> AlarmID
  {
    let recurrence: DraftRecurrence = days.map { .weekly($0) } ?? date.map { .once($0) } ?? .next
    let reply = try request(
      ControlRequest(adding: AlarmDraft(time: WallTime(hour: hour, minute: minute), recurrence: recurrence)))
    guard reply.ok == true, let list = try request("alarm", "list").alarms, let last = list.last else {
      throw CocoaError(.fileReadCorruptFile)
    }
    return last.alarm.id
  }

  /// The history, newest first.
  func history() throws -> [HistoryEntry] {
    try request("history", "--limit", "100").history ?? []
  }

  /// A client connection, read without blocking between loop turns.
  final class Connection {
    private let fd: Int32
    private unowned let dock: ManualDock
    private var received: [UInt8] = []

    init(path: String, dock: ManualDock) throws {
      self.dock = dock
      fd = Glibc.socket(
        AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
      guard let address = UnixSocketAddress(path) else { throw CocoaError(.fileNoSuchFile) }
      let result = address.withSockaddr { pointer, length in connect(fd, pointer, length) }
      guard result == 0 else { throw CocoaError(.fileNoSuchFile) }
    }

    private var isOpen = true

    deinit { hangUp() }

    /// Closes the client's end, as a client that goes away (Ctrl-C) does.
    func hangUp() {
      guard isOpen else { return }
      isOpen = false
      Glibc.close(fd)
    }

    func send(_ command: ControlRequest) throws {
      try writeAll(ControlWire.encode(command) + [10], to: fd)
    }

    /// Runs the loop, then returns the replies that came in since the last call.
    func replies() throws -> [ControlReply] {
      try dock.settle()
      var chunk = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count = read(fd, &chunk, chunk.count)
        guard count > 0 else { break }
        received += chunk[0..<count]
      }
      var replies: [ControlReply] = []
      while let newline = received.firstIndex(of: 10) {
        replies.append(try ControlWire.decodeReply(received[..<newline]))
        received.removeSubrange(...newline)
      }
      return replies
    }

  }
}
