import Glibc
import PuckCore
import PuckDevices
import PuckStorage
import PuckSystem

/// A `puckctl pair` in progress: waits for a tag, then the same tag again.
struct PairingSession {
  let client: ControlServer.Client
  let timer: Timer
  var first: TagUID?
}

/// A `puckctl test` rehearsal: a short ring that is not a wake-up.
struct Rehearsal {
  let client: ControlServer.Client
  let timer: Timer
}

extension Daemon {
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
    if held >= .member { retryStateFiles(before: command) }
    switch command {
    case .status:
      refreshReaderProgress()
      client.send(ControlReply(ok: true, status: dockStatus()))
    case .alarmList:
      client.send(ControlReply(ok: true, alarms: alarmViews()))
    case .history(let query):
      do {
        // A page read backwards from its end: the cost follows the page, not the file's years.
        guard let page = try history.readPage(before: query.before, limit: query.limit) else {
          let cursor = query.before ?? 0
          client.send(.failure(ControlFailure(.badRequest, "\(cursor) is not a cursor a history reply gave")))
          return
        }
        if !page.problems.isEmpty { refreshStateProblems() }
        client.send(ControlReply(ok: true, history: page.entries, nextBefore: page.nextBefore))
      } catch {
        client.send(.failure(ControlFailure(.failed, "history could not be read: \(error)")))
      }
    case .alarmAdd(let draft): addAlarm(draft, client: client)
    case .alarmRemove(let id):
      changeAlarm(id, client: client, verb: "removed") { book, index in book.alarms.remove(at: index) }
    case .alarmSetEnabled(let id, let enabled):
      changeAlarm(id, client: client, verb: enabled ? "enabled" : "disabled") { book, index in
        // Enabled while the clock is behind the handled point, it rings in the re-lived window.
        if enabled && !book.alarms[index].enabled { self.startCounting(id) }
        book.alarms[index].enabled = enabled
        if enabled { book.alarms[index].skippedDate = nil }
      }
    case .alarmSkip(let id): skipAlarm(id, client: client)
    case .stop:
      if rehearsal != nil {
        endRehearsal(interrupted: true)
        client.send(.success("rehearsal stopped"))
      } else if machine.isRinging {
        handle(.bypass)
        let retry =
          machine.nextRetry.map { " — it rings again at \(describe($0)) unless you scan the puck" } ?? ""
        client.send(.success("silenced\(retry)"))
      } else {
        client.send(.success("nothing is ringing"))
      }
    case .scan(let uid):
      guard options.simulate else {
        client.send(
          .failure(
            ControlFailure(
              .refused,
              "this puckd uses a real reader (\(config.reader.device)); simulated scans are accepted only by "
                + "puckd --simulate — hold the tag to the reader instead")))
        return
      }
      Log.info("simulated scan of \(uid.masked)")
      let wasOpen = machine.guards.count
      tagScanned(uid, fresh: true)
      if pairing != nil || wasOpen == 0 {
        client.send(.success("scanned \(uid.masked)"))
      } else if machine.guards.isEmpty {
        client.send(.success("scanned \(uid.masked): wake-up complete, good morning"))
      } else {
        client.send(.success("scanned \(uid.masked): not the paired tag; the wake-up stays open"))
      }
    case .override:
      guard !machine.guards.isEmpty else {
        client.send(.success("no wake-up is open"))
        return
      }
      Log.warning("override requested by uid \(client.peer.uid) (pid \(client.peer.pid))")
      let count = machine.guards.count
      handle(.override)
      let recorded =
        machine.pendingHistory.isEmpty
        ? "recorded in history"
        : "NOT yet recorded in history (\(historyFailure ?? "pending")); kept in \(EnforcementRecord.fileName) and retried"
      client.send(.success("closed \(count) wake-up\(count == 1 ? "" : "s") WITHOUT a scan; \(recorded)"))
    case .pair(let timeout): startPairing(timeout: timeout, client: client)
    case .unpair: unpair(client: client)
    case .test(let seconds): startRehearsal(seconds: seconds, client: client)
    case .acknowledge:
      do {
        try state.acknowledgeProblems()
      } catch {
        client.send(.failure(ControlFailure(.failed, "\(error)")))
        return
      }
      record.acknowledgeMissed()
      refreshStateProblems()
      saveRecord()
      updateStatus()
      client.send(.success("acknowledged"))
    }
  }

  private func addAlarm(_ draft: AlarmDraft, client: ControlServer.Client) {
    guard !book.isFull else {
      let limit = AlarmBook.maximumAlarms
      client.send(
        .failure(ControlFailure(.refused, "at most \(limit) alarms; remove one first (puckctl alarm rm ID)")))
      return
    }
    processDue()
    startCounting(book.nextID)
    let alarm = book.add(draft, now: now, in: zone)
    do {
      try saveBook()
    } catch {
      book.alarms.removeLast()
      client.send(.failure(ControlFailure(.failed, "could not save the alarm: \(error)")))
      return
    }
    refreshSchedule()
    let next =
      nextFire(of: alarm).map { ", next \(describe($0))" }
      ?? ", which is in the past"
    Log.info("alarm \(alarm.id) added: \(alarm.time) \(alarm.recurrence.summary)")
    client.send(.success("alarm \(alarm.id) added: \(alarm.time) \(alarm.recurrence.summary)\(next)"))
  }

  private func changeAlarm(
    _ id: AlarmID, client: ControlServer.Client, verb: String, change: (inout AlarmBook, Int) -> Void
  ) {
    guard let index = book.index(of: id) else {
      client.send(.failure(ControlFailure(.notFound, "no alarm \(id) (see puckctl alarm list)")))
      return
    }
    processDue()
    let before = book
    change(&book, index)
    do {
      try saveBook()
    } catch {
      book = before
      client.send(.failure(ControlFailure(.failed, "could not save: \(error)")))
      return
    }
    refreshSchedule()
    Log.info("alarm \(id) \(verb)")
    client.send(.success("alarm \(id) \(verb)"))
  }

  private func skipAlarm(_ id: AlarmID, client: ControlServer.Client) {
    // Catch up first: an occurrence falling due right now opens its guard before the check.
    processDue()
    guard let index = book.index(of: id) else {
      client.send(.failure(ControlFailure(.notFound, "no alarm \(id) (see puckctl alarm list)")))
      return
    }
    guard !machine.guards.contains(where: { $0.occurrence.alarmID == id }) else {
      client.send(
        .failure(ControlFailure(.refused, "alarm \(id) is already ringing; only the puck ends it now")))
      return
    }
    let alarm = book.alarms[index]
    var unskipped = alarm
    unskipped.skippedDate = nil
    // From the handled point, not from now: after a backward step the occurrence just ahead
    // of the clock may already have rung, and skipping it would skip nothing.
    guard let next = nextFire(of: unskipped) else {
      client.send(.failure(ControlFailure(.refused, "alarm \(id) has no next occurrence to skip")))
      return
    }
    changeAlarm(id, client: client, verb: "will skip \(describe(next))") { book, index in
      book.alarms[index].skippedDate = self.zone.localDateTime(at: next).date
    }
  }

  // MARK: - Pairing

  private func startPairing(timeout: Int, client: ControlServer.Client) {
    guard machine.guards.isEmpty else {
      client.send(
        .failure(
          ControlFailure(
            .refused, "a wake-up is open; pairing is refused until it is ended with the paired tag")))
      return
    }
    guard pairing == nil else {
      client.send(.failure(ControlFailure(.refused, "another pairing is already waiting for a tag")))
      return
    }
    do {
      let timer = try Timer(.monotonic)
      try timer.arm(after: .seconds(timeout))
      try loop.watch(timer.fd) { [unowned self] _ in
        guard timer.acknowledge() != nil else { return }
        self.finishPairing(
          .failure(ControlFailure(.failed, "no tag seen within \(timeout) s; nothing paired")))
      }
      pairing = PairingSession(client: client, timer: timer, first: nil)
      updateReaderPolling()
      Log.info("pairing: waiting for a tag (\(timeout) s)")
      let source = options.simulate ? " (simulated: send it with puckctl scan UID)" : ""
      client.send(.progress("waiting for a tag on the reader\(source)… (\(timeout) s)"))
    } catch {
      client.send(.failure(ControlFailure(.failed, "\(error)")))
    }
  }

  /// Ends a waiting pairing with a refusal.
  func cancelPairing(because reason: String) {
    Log.notice("pairing cancelled: \(reason)")
    finishPairing(.failure(ControlFailure(.refused, reason)))
  }

  func pairingScan(_ uid: TagUID, fresh: Bool) {
    guard var session = pairing else { return }
    guard machine.guards.isEmpty else {
      cancelPairing(because: "a wake-up is open; pairing is refused until it is ended with the paired tag")
      return
    }
    do {
      try uid.validateForPairing()
    } catch {
      session.client.send(.progress("\(error) — present a tag"))
      return
    }
    guard let first = session.first else {
      session.first = uid
      pairing = session
      session.client.send(.progress("got \(uid.masked); lift it and present the same tag again to confirm"))
      return
    }
    guard first == uid else {
      finishPairing(
        .failure(
          ControlFailure(
            .failed, "the second tag (\(uid.masked)) is not the first (\(first.masked)); nothing paired")))
      return
    }
    do {
      try savePairing(PairedTag(uid: uid, pairedAt: now))
    } catch {
      finishPairing(.failure(ControlFailure(.failed, "could not save the pairing: \(error)")))
      return
    }
    pairedTag = uid
    pairingProblem = nil
    Log.notice("paired tag \(uid.masked)")
    finishPairing(
      .success("paired \(uid.masked). Put it where you must walk to (the kitchen, not the nightstand)."))
  }

  private func finishPairing(_ reply: ControlReply) {
    guard let session = pairing else { return }
    pairing = nil
    loop.unwatch(session.timer.fd)
    if !session.client.isClosed { session.client.send(reply) }
    updateReaderPolling()
    updateStatus()
  }

  private func unpair(client: ControlServer.Client) {
    guard machine.guards.isEmpty else {
      client.send(
        .failure(
          ControlFailure(
            .refused, "a wake-up is open; unpairing is refused until it is ended with the paired tag")))
      return
    }
    do {
      try removePairing()
    } catch {
      client.send(.failure(ControlFailure(.failed, "\(error)")))
      return
    }
    pairedTag = nil
    pairingProblem = nil
    Log.notice("unpaired")
    updateStatus()
    client.send(.success("unpaired; the dock is not protected until you pair a tag"))
  }

  /// A connection closed: a pairing or rehearsal waiting on it is abandoned.
  func clientClosed(_ client: ControlServer.Client) {
    if let session = pairing, session.client === client {
      Log.info("pairing abandoned (puckctl went away)")
      finishPairing(.failure(ControlFailure(.failed, "abandoned")))
    }
    if let current = rehearsal, current.client === client {
      endRehearsal(interrupted: true)
    }
  }

  // MARK: - Rehearsal

  private func startRehearsal(seconds: Int, client: ControlServer.Client) {
    guard ringing == nil, rehearsal == nil else {
      client.send(.failure(ControlFailure(.refused, "the dock is ringing; a rehearsal would get in the way")))
      return
    }
    do {
      let timer = try Timer(.monotonic)
      try timer.arm(after: .seconds(seconds))
      try loop.watch(timer.fd) { [unowned self] _ in
        guard timer.acknowledge() != nil else { return }
        self.endRehearsal(interrupted: false)
      }
      rehearsal = Rehearsal(client: client, timer: timer)
      Log.info("rehearsal: ringing for \(seconds) s")
      audio.start(sound: sound, startVolume: 1, ramp: .zero)
      buzzer.start()
    } catch {
      client.send(.failure(ControlFailure(.failed, "\(error)")))
    }
  }

  func endRehearsal(interrupted: Bool) {
    guard let current = rehearsal else { return }
    rehearsal = nil
    loop.unwatch(current.timer.fd)
    audio.stop()
    buzzer.stop()
    guard !current.client.isClosed else { return }
    if interrupted {
      current.client.send(.failure(ControlFailure(.failed, "rehearsal interrupted")))
      return
    }
    refreshReaderProgress()
    let devices = deviceHealth()
    let lines = devices.map {
      "\($0.name): \($0.state.rawValue)\($0.detail.isEmpty ? "" : " — \($0.detail)")"
    }
    let faulty = devices.contains { $0.state == .fault }
    let reply: ControlReply =
      faulty
      ? .failure(ControlFailure(.failed, (["rehearsal found a fault:"] + lines).joined(separator: "\n")))
      : .success((["rehearsal done:"] + lines).joined(separator: "\n"))
    current.client.send(reply)
  }
}
