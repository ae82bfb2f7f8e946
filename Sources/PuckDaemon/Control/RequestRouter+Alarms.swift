import PuckCore
import PuckStorage

/// The alarm commands: each catches up first (an occurrence falling due right now opens its
/// guard before the change), saves before it answers, and re-arms the schedule. A refusal is
/// thrown; the router sends it.
extension RequestRouter {
  func addAlarm(_ draft: AlarmDraft, client: ControlServer.Client) throws(ControlFailure) {
    guard !dock.state.alarms.book.isFull else {
      let limit = AlarmBook.maximumAlarms
      throw ControlFailure(.refused, "at most \(limit) alarms; remove one first (puckctl alarm rm ID)")
    }
    schedule.processDue()
    schedule.startCounting(dock.state.alarms.book.nextID)
    let now = dock.time.instant
    let zone = dock.settings.zone
    let alarm = try saved("could not save the alarm") { book in book.add(draft, now: now, in: zone) }
    schedule.refresh()
    Log.info("alarm \(alarm.id) added: \(alarm.time) \(alarm.recurrence.summary)")
    client.send(
      .success("alarm \(alarm.id) added: \(alarm.time) \(alarm.recurrence.summary)\(nextRing(of: alarm.id))"))
  }

  /// ", next WHEN" for an alarm that rings again, or why it will not: a one-shot whose date
  /// has passed is accepted (added, enabled or edited) but must not read as set, nor one whose
  /// only ring a skip or a pause takes. Nothing for an alarm disabled or gone.
  func nextRing(of id: AlarmID) -> String {
    guard let alarm = dock.state.alarms.alarms.first(where: { $0.id == id }), alarm.enabled else { return "" }
    if let next = schedule.nextFire(of: alarm) { return ", next \(dock.settings.describe(next))" }
    var unpaused = alarm
    unpaused.skippedDate = nil
    unpaused.pausedUntil = nil
    guard schedule.nextFire(of: unpaused) == nil else {
      return ", and its only ring ahead is skipped or paused: it will not ring"
    }
    return ", which is in the past: it will not ring (give it a new date or days: puckctl alarm edit \(id))"
  }

  /// Changes alarm `id` (after catching up, looked up again, as catching up may have retired
  /// or changed it), saves, and answers "alarm ID verb". `refusedIfOpen` names the change when
  /// it must wait for the puck to end the alarm's open wake-up.
  func changeAlarm(
    _ id: AlarmID, client: ControlServer.Client, verb: String, refusedIfOpen: String? = nil,
    change: (inout AlarmBook, Int) -> Void
  ) throws(ControlFailure) {
    schedule.processDue()
    _ = try index(of: id)
    if let refusedIfOpen { try refuseIfOpen(id, refusedIfOpen) }
    try saved("could not save") { book in
      if let index = book.index(of: id) { change(&book, index) }
    }
    schedule.refresh()
    Log.info("alarm \(id) \(verb)")
    client.send(.success("alarm \(id) \(verb)\(nextRing(of: id))"))
  }

  func setEnabled(_ id: AlarmID, _ enabled: Bool, client: ControlServer.Client) throws(ControlFailure) {
    let verb = enabled ? "enabled" : "disabled"
    // Enabling also cancels a pending skip (the way to take one back); the reply says so, of
    // a skip still ahead (one whose day has passed is cleared by the next ring).
    schedule.processDue()
    let today = dock.settings.zone.localDateTime(at: dock.time.instant).date
    let skipped = enabled ? dock.state.alarms.alarms.first { $0.id == id }?.skippedDate : nil
    let said = skipped.flatMap { $0 >= today ? "enabled; its skip of \($0) is cancelled" : nil } ?? verb
    try changeAlarm(id, client: client, verb: said, refusedIfOpen: verb) { book, index in
      // Enabled while the clock is behind the handled point, it rings in the re-lived window.
      if enabled && !book.alarms[index].enabled { self.schedule.startCounting(id) }
      book.alarms[index].enabled = enabled
      if enabled { book.alarms[index].skippedDate = nil }
    }
  }

  func skipAlarm(_ id: AlarmID, client: ControlServer.Client) throws(ControlFailure) {
    // Catch up first: an occurrence falling due right now opens its guard before the check.
    schedule.processDue()
    var unskipped = dock.state.alarms.alarms[try index(of: id)]
    guard !enforcement.guards.contains(where: { $0.occurrence.alarmID == id }) else {
      throw ControlFailure(.refused, "alarm \(id) is already ringing; only the puck ends it now")
    }
    unskipped.skippedDate = nil
    // From the handled point, not from now: after a backward step the occurrence just ahead
    // of the clock may already have rung, and skipping it would skip nothing.
    guard let next = schedule.nextFire(of: unskipped) else {
      throw ControlFailure(.refused, "alarm \(id) has no next occurrence to skip")
    }
    let date = dock.settings.zone.localDateTime(at: next).date
    try changeAlarm(id, client: client, verb: "will skip \(dock.settings.describe(next))") { book, index in
      book.alarms[index].skippedDate = date
    }
  }

  func editAlarm(_ id: AlarmID, _ change: AlarmEdit, client: ControlServer.Client) throws(ControlFailure) {
    let now = dock.time.instant
    let zone = dock.settings.zone
    try changeAlarm(id, client: client, verb: "changed", refusedIfOpen: "edited") { book, index in
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

  /// Pauses alarm `id` until a date (the first day it rings again), or resumes it (nil).
  func pauseAlarm(_ id: AlarmID, until: DraftDate?, client: ControlServer.Client) throws(ControlFailure) {
    guard let until else {
      try changeAlarm(id, client: client, verb: "resumed", refusedIfOpen: "resumed") { book, index in
        book.alarms[index].pausedUntil = nil
      }
      return
    }
    schedule.processDue()
    _ = try index(of: id)
    try refuseIfOpen(id, "paused")
    let date = try resolvedPause(until, longer: "to stop this alarm for longer, disable it")
    try changeAlarm(id, client: client, verb: "paused; it rings again from \(date)", refusedIfOpen: "paused")
    {
      book, index in book.alarms[index].pausedUntil = date
    }
  }

  /// Pauses the whole dock until a date, or resumes it (nil).
  func pauseDock(until: DraftDate?, client: ControlServer.Client) throws(ControlFailure) {
    schedule.processDue()
    guard !enforcement.isOpen else {
      throw ControlFailure(.refused, "a wake-up is open; the dock cannot be paused until the puck ends it")
    }
    var reply = "the dock's pause is over; alarms ring as scheduled"
    var date: LocalDate?
    if let until {
      date = try resolvedPause(
        until, longer: "for a longer absence, pause again nearer the time, or disable the alarms")
      reply = "the dock is paused: no alarm rings before \(date.map(String.init(describing:)) ?? "")"
    }
    try saved("could not save") { $0.pausedUntil = date }
    schedule.refresh()
    Log.info(reply)
    client.send(.success(reply))
  }

  /// Refuses a change to alarm `id` while its wake-up is open: nothing about it changes until
  /// the puck ends it (docs/DESIGN.md S11).
  private func refuseIfOpen(_ id: AlarmID, _ verb: String) throws(ControlFailure) {
    guard enforcement.guards.contains(where: { $0.occurrence.alarmID == id }) else { return }
    throw ControlFailure(
      .refused, "alarm \(id) has a wake-up open; it cannot be \(verb) until the puck ends it")
  }

  /// Where alarm `id` is in the book; not found, a refusal saying where to look.
  private func index(of id: AlarmID) throws(ControlFailure) -> Int {
    guard let index = dock.state.alarms.book.index(of: id) else {
      throw ControlFailure(.notFound, "no alarm \(id) (see puckctl alarm list)")
    }
    return index
  }

  /// The pause's end date, which must be after today in the dock's zone and at most
  /// `AlarmBook.longestPause` days after it; `longer` says what to do instead.
  private func resolvedPause(_ until: DraftDate, longer: String) throws(ControlFailure) -> LocalDate {
    let today = dock.settings.zone.localDateTime(at: dock.time.instant).date
    let date = until.resolved(today: today)
    guard date > today else {
      throw ControlFailure(
        .badRequest, "--until is the first day alarms ring again: a date after today (\(today))")
    }
    let latest = today.adding(days: AlarmBook.longestPause)
    guard date <= latest else {
      throw ControlFailure(
        .badRequest, "--until is at most \(AlarmBook.longestPause) days ahead (\(latest)); \(longer)")
    }
    return date
  }

  /// Applies `change` to the book and saves it; a failed save is a failure starting `what`. A
  /// change that would remove or delay an alarm locked in the hour before it is refused first,
  /// whichever command asks (docs/DESIGN.md S12).
  @discardableResult
  private func saved<Result>(_ what: String, _ change: (inout AlarmBook) -> Result) throws(ControlFailure)
    -> Result
  {
    let before = dock.state.alarms.book
    var after = before
    let result = change(&after)
    try lock.permit(from: before, to: after)
    try ControlFailure.failing(what) { try dock.state.alarms.change { $0 = after } }
    lock.accepted(from: before, to: after)
    return result
  }
}
