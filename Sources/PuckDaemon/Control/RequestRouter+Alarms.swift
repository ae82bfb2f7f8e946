import PuckCore
import PuckStorage

/// The alarm commands: each catches up first (an occurrence falling due right now opens its
/// guard before the change), saves before it answers, and re-arms the schedule.
extension RequestRouter {
  func addAlarm(_ draft: AlarmDraft, client: ControlServer.Client) {
    guard !alarms.book.isFull else {
      let limit = AlarmBook.maximumAlarms
      client.send(
        .failure(ControlFailure(.refused, "at most \(limit) alarms; remove one first (puckctl alarm rm ID)")))
      return
    }
    schedule.processDue()
    schedule.startCounting(alarms.book.nextID)
    let alarm: Alarm
    do {
      let now = time.instant
      let zone = settings.zone
      alarm = try alarms.change { book in book.add(draft, now: now, in: zone) }
    } catch {
      client.send(.failure(ControlFailure(.failed, "could not save the alarm: \(error)")))
      return
    }
    schedule.refresh()
    let next =
      schedule.nextFire(of: alarm).map { ", next \(settings.describe($0))" }
      ?? ", which is in the past"
    Log.info("alarm \(alarm.id) added: \(alarm.time) \(alarm.recurrence.summary)")
    client.send(.success("alarm \(alarm.id) added: \(alarm.time) \(alarm.recurrence.summary)\(next)"))
  }

  func changeAlarm(
    _ id: AlarmID, client: ControlServer.Client, verb: String, change: (inout AlarmBook, Int) -> Void
  ) {
    guard alarms.book.index(of: id) != nil else {
      client.send(.failure(ControlFailure(.notFound, "no alarm \(id) (see puckctl alarm list)")))
      return
    }
    schedule.processDue()
    do {
      try alarms.change { book in
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
    guard let index = alarms.book.index(of: id) else {
      client.send(.failure(ControlFailure(.notFound, "no alarm \(id) (see puckctl alarm list)")))
      return
    }
    guard !enforcement.guards.contains(where: { $0.occurrence.alarmID == id }) else {
      client.send(
        .failure(ControlFailure(.refused, "alarm \(id) is already ringing; only the puck ends it now")))
      return
    }
    var unskipped = alarms.book.alarms[index]
    unskipped.skippedDate = nil
    // From the handled point, not from now: after a backward step the occurrence just ahead
    // of the clock may already have rung, and skipping it would skip nothing.
    guard let next = schedule.nextFire(of: unskipped) else {
      client.send(.failure(ControlFailure(.refused, "alarm \(id) has no next occurrence to skip")))
      return
    }
    let date = settings.zone.localDateTime(at: next).date
    changeAlarm(id, client: client, verb: "will skip \(settings.describe(next))") { book, index in
      book.alarms[index].skippedDate = date
    }
  }
}
