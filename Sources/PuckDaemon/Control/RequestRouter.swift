import Glibc
import PuckCore
import PuckStorage
import PuckSystem

/// Answers the control socket's requests (docs/DESIGN.md §7): checks the role the command
/// needs (the core's `CommandTable`), lets `StateRetry` try held files first, and hands each
/// command to the component that owns it.
final class RequestRouter {
  let dock: DockContext
  let enforcement: Enforcement
  let schedule: ScheduleKeeper
  let retry: StateRetry
  let status: StatusReporter
  let devices: DockDevices
  let flows: ControlFlows
  /// The hour before each alarm: every change of the alarm book passes its check.
  let lock: LockWindow
  /// Where a simulated scan goes (pairing first, else the guards).
  @Wired("RequestRouter.onScan") var onScan: (TagUID, Bool) -> Void
  /// Reads the config again and applies it (as SIGHUP); the problem it found, or nil.
  @Wired("RequestRouter.onReload") var onReload: () -> String?
  /// Refusals a loop could repeat many times a second, logged at most once a minute per kind.
  private var reports = RepeatLimiter<String, MonotonicInstant>()

  init(
    dock: DockContext, enforcement: Enforcement, schedule: ScheduleKeeper, retry: StateRetry,
    status: StatusReporter, devices: DockDevices, flows: ControlFlows, lock: LockWindow
  ) {
    self.lock = lock
    self.dock = dock
    self.enforcement = enforcement
    self.schedule = schedule
    self.retry = retry
    self.status = status
    self.devices = devices
    self.flows = flows
  }

  /// The role a peer holds: root (or, for a development daemon, the user it runs as), the web
  /// app's own user (`puck-web`, a member of the group but given the web role only, whatever
  /// its groups), a member of the `puckalarm` group, or anyone.
  func role(of peer: PeerCredentials) -> Role {
    if peer.uid == 0 || peer.uid == geteuid() { return .root }
    if let web = getpwnam(Self.webUser), peer.uid == web.pointee.pw_uid { return .web }
    if let group = getgrnam("puckalarm"),
      peer.gid == group.pointee.gr_gid || peer.groups.contains(group.pointee.gr_gid)
    {
      return .member
    }
    return .anyone
  }

  /// The web app's account (systemd/puckalarm.sysusers, puck-web.service's `User=`).
  static let webUser = "puck-web"

  /// One request from the control socket.
  func received(_ request: Result<ControlRequest, ControlFailure>, from client: ControlServer.Client) {
    let command: ControlRequest
    switch request {
    case .failure(let failure):
      Log.info("control: bad request from pid \(client.peer.pid): \(failure.message)")
      client.send(.failure(failure))
      return
    case .success(let decoded):
      command = decoded
    }
    let name = command.name.rawValue
    let held = role(of: client.peer)
    guard held >= command.requiredRole else {
      let who: String
      switch command.requiredRole {
      case .root: who = "root (sudo puckctl …)"
      case .member where held == .web:
        who = "a person at the dock: the web app (\(Self.webUser)) may never send it"
      default: who = "root or the puckalarm group"
      }
      Log.notice("control: \(name) refused for uid \(client.peer.uid): needs \(who)")
      client.send(.failure(.permissionDenied, "\(name) needs \(who)"))
      return
    }
    // A state file that could not be read, or a history entry still waiting, is tried again
    // before the request sees or changes anything; not for anyone's status, which would let
    // any local user make the loop re-read the history file as fast as they can ask.
    if held >= .web { retry.retry(before: command.name) }
    do throws(ControlFailure) {
      try dispatch(command, client: client)
    } catch {
      client.send(.failure(error))
    }
  }

  /// Hands a command to what answers it; a refusal is thrown. Decoding held the request to its
  /// declaration, so an argument it requires is there; `required` only guards that promise.
  private func dispatch(_ request: ControlRequest, client: ControlServer.Client) throws(ControlFailure) {
    func required<Value>(_ value: Value?) throws(ControlFailure) -> Value {
      guard let value else { throw ControlFailure(.badRequest, "\(request.name.rawValue) lacks an argument") }
      return value
    }
    switch request.name {
    case .status:
      devices.readers.refreshProgress()
      client.send(ControlReply(ok: true, status: status.dockStatus()))
    case .alarmList:
      var reply = ControlReply(ok: true, alarms: status.alarmViews())
      reply.pausedUntil = status.dockPausedUntil
      client.send(reply)
    case .history:
      client.send(try history(limit: try required(request.integer(.limit)), before: request.integer(.before)))
    case .alarmAdd: try addAlarm(try required(request.alarmDraft), client: client)
    case .alarmRemove:
      let id = try required(request.alarmID)
      try changeAlarm(id, client: client, verb: "removed", refusedIfOpen: "removed") { book, index in
        book.alarms.remove(at: index)
      }
    case .alarmEnable: try setEnabled(try required(request.alarmID), true, client: client)
    case .alarmDisable: try setEnabled(try required(request.alarmID), false, client: client)
    case .alarmSkip: try skipAlarm(try required(request.alarmID), client: client)
    case .alarmEdit: try editAlarm(try required(request.alarmID), request.alarmEdit, client: client)
    case .alarmPause:
      try pauseAlarm(try required(request.alarmID), until: try required(request.until), client: client)
    case .alarmResume: try pauseAlarm(try required(request.alarmID), until: nil, client: client)
    case .pause: try pauseDock(until: try required(request.until), client: client)
    case .resume: try pauseDock(until: nil, client: client)
    case .stop: client.send(try stop(from: client.peer))
    case .scan: client.send(try scan(try required(request.uid)))
    case .override:
      if request.flag(.cancel) {
        flows.overrides.cancel(by: client)
      } else {
        try flows.overrides.start(client: client)
      }
    case .pair:
      try flows.pairing.start(
        timeout: try required(request.integer(.seconds)), name: request.text(.name), client: client)
    case .unpair:
      client.send(try flows.pairing.unpair(name: request.text(.name), confirmed: request.flag(.yes)))
    case .pucks:
      var reply = ControlReply(ok: true)
      reply.pucks = dock.state.pairing.pucks.map(PuckView.init)
      client.send(reply)
    case .test:
      // A rehearsal waiting for the puck would take the scan that ends the wake-up.
      guard !enforcement.isOpen else {
        throw ControlFailure(
          .refused,
          "a wake-up is open; rehearse once the puck has ended it (a rehearsal would take its scan)")
      }
      try flows.rehearsal.start(
        seconds: try required(request.integer(.seconds)),
        scanSeconds: try required(request.integer(.scanSeconds)),
        client: client)
    case .acknowledge: client.send(try acknowledge())
    case .check: flows.preflight.run(.request, client: client)
    case .awake:
      guard flows.awake.confirm() else {
        throw ControlFailure(.refused, "no wake-up check is waiting for an answer")
      }
      client.send(.success("thank you: the wake-up check is answered, have a good day"))
    case .readerAdd: client.send(try addReader(try required(request.text(.reader)), key: request.text(.key)))
    case .readerRemove: client.send(try removeReader(try required(request.text(.reader))))
    case .readerList: client.send(listReaders())
    case .reload:
      if let problem = onReload() {
        throw ControlFailure(.failed, "\(problem); puckd keeps its previous settings")
      }
      client.send(.success("puckd read \(dock.settings.options.configPath) again and applied it"))
    case .stats, .calendar, .completion, .setup, .webPassword:
      // The decoder refuses these as unknown: puckctl answers them itself.
      throw ControlFailure(.badRequest, "unknown command '\(request.name.rawValue)'")
    }
  }

  /// The `limit` entries older than the cursor `before`, or the newest.
  private func history(limit: Int, before: Int?) throws(ControlFailure) -> ControlReply {
    // A page read backwards from its end: the cost follows the page, not the file's years.
    let page = try ControlFailure.failing("history could not be read") {
      try dock.state.journal.log.readPage(before: before, limit: limit)
    }
    guard let page else {
      throw ControlFailure(.badRequest, "\(before ?? 0) is not a cursor a history reply gave")
    }
    if !page.problems.isEmpty { dock.state.files.refreshProblems() }
    return ControlReply(ok: true, history: page.entries, nextBefore: page.nextBefore)
  }

  private func stop(from peer: PeerCredentials) throws(ControlFailure) -> ControlReply {
    if flows.rehearsal.isRunning {
      flows.rehearsal.interrupt()
      return .success("rehearsal stopped")
    }
    guard enforcement.machine.isRinging else { return .nothingToDo("nothing is ringing") }
    for case .socketStopRefused(let remaining) in enforcement.handle(.socketStop) {
      let seconds = Int((remaining + .milliseconds(999)).components.seconds)
      reports.report("stop refused", now: dock.time.monotonicNow()) {
        Log.notice(
          "control: stop refused for uid \(peer.uid): the ring has \(seconds) s to go before a stop counts\($0)"
        )
      }
      throw ControlFailure(
        .refused,
        "not yet: the ring must be heard for \(seconds) s more before puckctl stop counts "
          + "([enforcement] stop_after); the dock button stops it at once, and a scan of the puck ends the wake-up"
      )
    }
    let retry = enforcement.nextRetry.map {
      " — it rings again at \(dock.settings.describe($0)) unless you scan the puck"
    }
    return .success("silenced\(retry ?? "")")
  }

  private func scan(_ uid: TagUID) throws(ControlFailure) -> ControlReply {
    guard dock.settings.simulated else {
      throw ControlFailure(
        .refused,
        "this puckd uses a real reader (\(dock.settings.config.reader.device)); simulated scans are accepted only by "
          + "puckd --simulate — hold the tag to the reader instead")
    }
    Log.info("simulated scan of \(uid.masked)")
    let wasOpen = enforcement.guards.count
    let wasPairing = flows.pairing.isWaiting
    let wasLocked = wasOpen == 0 && !wasPairing ? lock.locked(early: true) : []
    onScan(uid, true)
    if !wasLocked.isEmpty && lock.locked(early: true).isEmpty {
      let names = wasLocked.map(\.displayName).joined(separator: ", ")
      return .success(
        "scanned \(uid.masked): up before the alarm; \(names) will not ring today, good morning")
    }
    if wasPairing || wasOpen == 0 { return .success("scanned \(uid.masked)") }
    if !enforcement.isOpen { return .success("scanned \(uid.masked): wake-up complete, good morning") }
    return .success("scanned \(uid.masked): not the paired tag; the wake-up stays open")
  }

  private func acknowledge() throws(ControlFailure) -> ControlReply {
    try ControlFailure.failing { try dock.state.files.acknowledgeProblems() }
    // The problems are cleared even when the missed alarms cannot be: those stay shown, as
    // they stay on disk.
    defer { dock.changes.mark(.status) }
    try ControlFailure.failing("could not save the acknowledged missed alarms") {
      try enforcement.commit(.acknowledged)
    }
    return .success("acknowledged")
  }
}
