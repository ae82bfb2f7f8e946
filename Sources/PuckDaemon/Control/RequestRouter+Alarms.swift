import PuckCore
import PuckStorage

/// The alarm commands: each catches up first (an occurrence falling due right now opens its
/// guard before the change), saves before it answers, and re-arms the schedule.
extension RequestRouter {
  func addAlarm(_ draft: AlarmDraft, client: ControlServer.Client) {
    guard !dock.state.alarms.book.isFull else {
      let limit = AlarmBook.maximumAlarms
      client.send(
        .failure(ControlFailure(.refused, "at most \(limit) alarms; remove one first (puckctl alarm rm ID)")))
      return
    }
    schedule.processDue()
    schedule.startCounting(dock.state.alarms.book.nextID)
    let alarm: Alarm
    do {
      let now = dock.time.instant
      let zone = dock.settings.zone
      alarm = try dock.state.alarms.change { book in book.add(draft, now: now, in: zone) }
    } catch {
      client.send(.failure(ControlFailure(.failed, "could not save the alarm: \(error)")))
      return
    }
    schedule.refresh()
    let next =
      schedule.nextFire(of: alarm).map { ", next \(dock.settings.describe($0))" }
      ?? ", which is in the past"
    Log.info("alarm \(alarm.id) added: \(alarm.time) \(alarm.recurrence.summary)")
    client.send(.success("alarm \(alarm.id) added: \(alarm.time) \(alarm.recurrence.summary)\(next)"))
  }

  func changeAlarm(
    _ id: AlarmID, client: ControlServer.Client, verb: String, change: (inout AlarmBook, Int) -> Void
  ) {
    guard dock.state.alarms.book.index(of: id) != nil else {
      client.send(.failure(ControlFailure(.notFound, "no alarm \(id) (see puckctl alarm list)")))
      return
    }
    schedule.processDue()
    do {
      try dock.state.alarms.change { book in
        // Looked up again: catching up may have retired or changed it.
        if let index = book.index(of: id) { change(&book, index) }
      }
    } catch {
      client.send(.failure(ControlFailure(.failed, "could not save: \(error)")))
      return
    }
    schedule.refresh()
    Log.info("alarm \(id) \(verb)")
    client.send(.success("alarm \(id) \(verb)"))
  }

  func setEnabled(_ id: AlarmID, _ enabled: Bool, client: ControlServer.Client) {
    changeAlarm(id, client: client, verb: enabled ? "enabled" : "disabled") { book, index in
      // Enabled while the clock is behind the handled point, it rings in the re-lived window.
      if enabled && !book.alarms[index].enabled { self.schedule.startCounting(id) }
      book.alarms[index].enabled = enabled
      if enabled { book.alarms[index].skippedDate = nil }
    }
  }

  func skipAlarm(_ id: AlarmID, client: ControlServer.Client) {
    // Catch up first: an occurrence falling due right now opens its guard before the check.
    schedule.processDue()
    guard let index = dock.state.alarms.book.index(of: id) else {
      client.send(.failure(ControlFailure(.notFound, "no alarm \(id) (see puckctl alarm list)")))
      return
    }
    guard !enforcement.guards.contains(where: { $0.occurrence.alarmID == id }) else {
      client.send(
        .failure(ControlFailure(.refused, "alarm \(id) is already ringing; only the puck ends it now")))
      return
    }
    var unskipped = dock.state.alarms.alarms[index]
    unskipped.skippedDate = nil
    // From the handled point, not from now: after a backward step the occurrence just ahead
    // of the clock may already have rung, and skipping it would skip nothing.
    guard let next = schedule.nextFire(of: unskipped) else {
      client.send(.failure(ControlFailure(.refused, "alarm \(id) has no next occurrence to skip")))
      return
    }
    let date = dock.settings.zone.localDateTime(at: next).date
    changeAlarm(id, client: client, verb: "will skip \(dock.settings.describe(next))") { book, index in
      book.alarms[index].skippedDate = date
    }
  }

  /// Refuses a change to alarm `id` while its wake-up is open: nothing about it changes until
  /// the puck ends it (docs/DESIGN.md S11).
  private func refuseIfOpen(_ id: AlarmID, _ verb: String, client: ControlServer.Client) -> Bool {
    guard enforcement.guards.contains(where: { $0.occurrence.alarmID == id }) else { return false }
    client.send(
      .failure(
        ControlFailure(
          .refused, "alarm \(id) has a wake-up open; it cannot be \(verb) until the puck ends it")))
    return true
  }

  func editAlarm(_ id: AlarmID, _ change: AlarmEdit, client: ControlServer.Client) {
    schedule.processDue()
    guard dock.state.alarms.book.index(of: id) != nil else {
      client.send(.failure(ControlFailure(.notFound, "no alarm \(id) (see puckctl alarm list)")))
      return
    }
    guard !refuseIfOpen(id, "edited", client: client) else { return }
    let now = dock.time.instant
    let zone = dock.settings.zone
    changeAlarm(id, client: client, verb: "changed") { book, index in
      var alarm = book.alarms[index]
      let time = change.time ?? alarm.time
      if let recurrence = change.recurrence {
        alarm.recurrence = recurrence.resolved(time: time, now: now, in: zone)
      }
      if change.time != nil || change.recurrence != nil {
        alarm.time = time
        // A new time or new days: the old skip no longer names an occurrence, and the alarm
        // counts from now (as one enabled after a backward step).
        alarm.skippedDate = nil
        self.schedule.startCounting(id)
      }
      if let label = change.label { alarm.label = label }
      if let requiresPuck = change.requiresPuck { alarm.requiresPuck = requiresPuck }
      book.alarms[index] = alarm
    }
  }

  func pauseAlarm(_ id: AlarmID, until: DraftDate?, client: ControlServer.Client) {
    schedule.processDue()
    guard dock.state.alarms.book.index(of: id) != nil else {
      client.send(.failure(ControlFailure(.notFound, "no alarm \(id) (see puckctl alarm list)")))
      return
    }
    guard !refuseIfOpen(id, until == nil ? "resumed" : "paused", client: client) else { return }
    guard let until else {
      changeAlarm(id, client: client, verb: "resumed") { book, index in book.alarms[index].pausedUntil = nil }
      return
    }
    guard let date = resolvedPause(until, longer: "to stop this alarm for longer, disable it", client: client)
    else { return }
    changeAlarm(id, client: client, verb: "paused; it rings again from \(date)") { book, index in
      book.alarms[index].pausedUntil = date
    }
  }

  func pauseDock(until: DraftDate?, client: ControlServer.Client) {
    schedule.processDue()
    guard !enforcement.isOpen else {
      client.send(
        .failure(
          ControlFailure(.refused, "a wake-up is open; the dock cannot be paused until the puck ends it")))
      return
    }
    guard let until else {
      changeDock(client: client, reply: "the dock's pause is over; alarms ring as scheduled") {
        $0.pausedUntil = nil
      }
      return
    }
    let longer = "for a longer absence, pause again nearer the time, or disable the alarms"
    guard let date = resolvedPause(until, longer: longer, client: client) else { return }
    changeDock(client: client, reply: "the dock is paused: no alarm rings before \(date)") {
      $0.pausedUntil = date
    }
  }

  /// The pause's end date, which must be after today in the dock's zone and at most
  /// `AlarmBook.longestPause` days after it; nil after a refusal (already sent).
  private func resolvedPause(_ until: DraftDate, longer: String, client: ControlServer.Client) -> LocalDate? {
    let today = dock.settings.zone.localDateTime(at: dock.time.instant).date
    let date = until.resolved(today: today)
    guard date > today else {
      client.send(
        .failure(
          ControlFailure(
            .badRequest, "--until is the first day alarms ring again: a date after today (\(today))")))
      return nil
    }
    let latest = today.adding(days: AlarmBook.longestPause)
    guard date <= latest else {
      client.send(
        .failure(
          ControlFailure(
            .badRequest,
            "--until is at most \(AlarmBook.longestPause) days ahead (\(latest)); \(longer)"
          )))
      return nil
    }
    return date
  }

  private func changeDock(
    client: ControlServer.Client, reply: String, _ change: @escaping (inout AlarmBook) -> Void
  ) {
    do {
      try dock.state.alarms.change(change)
    } catch {
      client.send(.failure(ControlFailure(.failed, "could not save: \(error)")))
      return
    }
    schedule.refresh()
    Log.info(reply)
    client.send(.success(reply))
  }
}
