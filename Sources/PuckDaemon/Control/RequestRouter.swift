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
  /// Where a simulated scan goes (pairing first, else the guards).
  @Wired("RequestRouter.onScan") var onScan: (TagUID, Bool) -> Void

  init(
    dock: DockContext, enforcement: Enforcement, schedule: ScheduleKeeper, retry: StateRetry,
    status: StatusReporter, devices: DockDevices, flows: ControlFlows
  ) {
    self.dock = dock
    self.enforcement = enforcement
    self.schedule = schedule
    self.retry = retry
    self.status = status
    self.devices = devices
    self.flows = flows
  }

  /// The role a peer holds: root (or, for a development daemon, the user it runs as), a member
  /// of the `puckalarm` group, or anyone.
  func role(of peer: PeerCredentials) -> Role {
    if peer.uid == 0 || peer.uid == geteuid() { return .root }
    if let group = puckalarmGroup, peer.gid == group || peer.groups.contains(group) { return .member }
    return .anyone
  }

  private var puckalarmGroup: UInt32? {
    guard let entry = getgrnam("puckalarm") else { return nil }
    return entry.pointee.gr_gid
  }

  /// One request from the control socket.
  func received(_ request: Result<ControlCommand, ControlFailure>, from client: ControlServer.Client) {
    let command: ControlCommand
    switch request {
    case .failure(let failure):
      Log.info("control: bad request from pid \(client.peer.pid): \(failure.message)")
      client.send(.failure(failure))
      return
    case .success(let decoded):
      command = decoded
    }
    let held = role(of: client.peer)
    guard held >= command.requiredRole else {
      let who = command.requiredRole == .root ? "root (sudo puckctl …)" : "root or the puckalarm group"
      Log.notice("control: \(command.name) refused for uid \(client.peer.uid): needs \(who)")
      client.send(.failure(ControlFailure(.permissionDenied, "\(command.name) needs \(who)")))
      return
    }
    // A state file that could not be read, or a history entry still waiting, is tried again
    // before the request sees or changes anything; not for anyone's status, which would let
    // any local user make the loop re-read the history file as fast as they can ask.
    if held >= .member { retry.retry(before: command) }
    switch command {
    case .status:
      devices.readers.refreshProgress()
      client.send(ControlReply(ok: true, status: status.dockStatus()))
    case .alarmList:
      client.send(ControlReply(ok: true, alarms: status.alarmViews()))
    case .history(let query): history(query, client: client)
    case .alarmAdd(let draft): addAlarm(draft, client: client)
    case .alarmRemove(let id):
      changeAlarm(id, client: client, verb: "removed") { book, index in book.alarms.remove(at: index) }
    case .alarmSetEnabled(let id, let enabled): setEnabled(id, enabled, client: client)
    case .alarmSkip(let id): skipAlarm(id, client: client)
    case .alarmEdit(let id, let change): editAlarm(id, change, client: client)
    case .alarmPause(let id, let until): pauseAlarm(id, until: until, client: client)
    case .pause(let until): pauseDock(until: until, client: client)
    case .stop: stop(client: client)
    case .scan(let uid): scan(uid, client: client)
    case .override: flows.overrides.start(client: client)
    case .overrideCancel: flows.overrides.cancel(by: client)
    case .pair(let timeout, let name): flows.pairing.start(timeout: timeout, name: name, client: client)
    case .unpair(let name, let confirmed):
      flows.pairing.unpair(name: name, confirmed: confirmed, client: client)
    case .pucks:
      var reply = ControlReply(ok: true)
      reply.pucks = dock.state.pairing.pucks.map(PuckView.init)
      client.send(reply)
    case .test(let seconds, let scanSeconds):
      flows.rehearsal.start(seconds: seconds, scanSeconds: scanSeconds, client: client)
    case .acknowledge: acknowledge(client: client)
    case .check: flows.preflight.run(.request, client: client)
    case .awake:
      if flows.awake.confirm() {
        client.send(.success("thank you: the wake-up check is answered, have a good day"))
      } else {
        client.send(.failure(ControlFailure(.refused, "no wake-up check is waiting for an answer")))
      }
    case .readerAdd(let name, let key): addReader(name, key: key, client: client)
    case .readerRemove(let name): removeReader(name, client: client)
    case .readerList: listReaders(client: client)
    }
  }

  private func history(_ query: HistoryQuery, client: ControlServer.Client) {
    do {
      // A page read backwards from its end: the cost follows the page, not the file's years.
      guard let page = try dock.state.journal.log.readPage(before: query.before, limit: query.limit) else {
        let cursor = query.before ?? 0
        client.send(.failure(ControlFailure(.badRequest, "\(cursor) is not a cursor a history reply gave")))
        return
      }
      if !page.problems.isEmpty { dock.state.files.refreshProblems() }
      client.send(ControlReply(ok: true, history: page.entries, nextBefore: page.nextBefore))
    } catch {
      client.send(.failure(ControlFailure(.failed, "history could not be read: \(error)")))
    }
  }

  private func stop(client: ControlServer.Client) {
    if flows.rehearsal.isRunning {
      flows.rehearsal.interrupt()
      client.send(.success("rehearsal stopped"))
    } else if enforcement.machine.isRinging {
      enforcement.handle(.bypass)
      let retry =
        enforcement.nextRetry.map {
          " — it rings again at \(dock.settings.describe($0)) unless you scan the puck"
        }
        ?? ""
      client.send(.success("silenced\(retry)"))
    } else {
      client.send(.success("nothing is ringing"))
    }
  }

  private func scan(_ uid: TagUID, client: ControlServer.Client) {
    guard dock.settings.simulated else {
      client.send(
        .failure(
          ControlFailure(
            .refused,
            "this puckd uses a real reader (\(dock.settings.config.reader.device)); simulated scans are accepted only by "
              + "puckd --simulate — hold the tag to the reader instead")))
      return
    }
    Log.info("simulated scan of \(uid.masked)")
    let wasOpen = enforcement.guards.count
    let wasPairing = flows.pairing.isWaiting
    onScan(uid, true)
    if wasPairing || wasOpen == 0 {
      client.send(.success("scanned \(uid.masked)"))
    } else if !enforcement.isOpen {
      client.send(.success("scanned \(uid.masked): wake-up complete, good morning"))
    } else {
      client.send(.success("scanned \(uid.masked): not the paired tag; the wake-up stays open"))
    }
  }

  private func acknowledge(client: ControlServer.Client) {
    do {
      try dock.state.files.acknowledgeProblems()
    } catch {
      client.send(.failure(ControlFailure(.failed, "\(error)")))
      return
    }
    do {
      try enforcement.commit(.acknowledged)
    } catch {
      // The problems are cleared; the missed alarms stay shown, as they stay on disk.
      dock.changes.mark(.status)
      client.send(
        .failure(ControlFailure(.failed, "could not save the acknowledged missed alarms: \(error)")))
      return
    }
    dock.changes.mark(.status)
    client.send(.success("acknowledged"))
  }
}
