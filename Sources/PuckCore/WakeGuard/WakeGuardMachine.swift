/// The settings the wake guard needs, from the config file and the pairing.
public struct WakeGuardSettings: Hashable, Sendable {
  /// Quiet time after a bypass before the ring comes back (docs/DESIGN.md W3).
  public var retryDelay: Duration
  /// How long a ring may go untouched before it counts as a bypass.
  public var ringTimeout: Duration
  /// How much shorter each retry after the first gets (adaptive bypass; zero: never shorter).
  public var retryShrink: Duration = .zero
  /// The shortest retry delay shrinking reaches.
  public var retryFloor: Duration = .seconds(20)
  /// The paired pucks and their names; any of them ends a wake-up (docs/DESIGN.md P6). Empty
  /// when none is paired.
  public var pucks: [TagUID: String]
  /// When a press from the network counts (docs/DESIGN.md M9); by default it never does.
  public var networkBypass: NetworkBypassPolicy = .off
  /// How long a ring must have been heard before a stop through the control socket counts
  /// (`[enforcement] stop_after`, docs/DESIGN.md W18).
  public var stopAfter: Duration = .seconds(20)

  public init(
    retryDelay: Duration = .seconds(60), ringTimeout: Duration = .seconds(600), pucks: [TagUID: String]
  ) {
    self.retryDelay = retryDelay
    self.ringTimeout = ringTimeout
    self.pucks = pucks
  }

  /// Settings with one paired tag (named `primary`), or none.
  public init(retryDelay: Duration = .seconds(60), ringTimeout: Duration = .seconds(600), pairedTag: TagUID?)
  {
    self.init(
      retryDelay: retryDelay, ringTimeout: ringTimeout,
      pucks: pairedTag.map { [$0: PairedTag.defaultName] } ?? [:])
  }

  /// The longest quiet a stop that needs no one at the dock (the control socket, the network)
  /// buys for a ring heard for `heard`: half of it, so that whatever loop of such stops runs,
  /// the dock rings at least two thirds of the time, clear of the half the promise states
  /// (whole-second instants and a sound's start take a little of each ring; docs/DESIGN.md W18).
  public static func remoteQuiet(afterHeard heard: Duration) -> Duration { heard / 2 }

  /// The quiet time after the `bypass`-th bypass of a wake-up (1 for the first): `retryDelay`,
  /// then shorter by `retryShrink` each time, never below `retryFloor` (nor above `retryDelay`
  /// when the floor is set higher; docs/DESIGN.md W15).
  public func retryDelay(afterBypass bypass: Int) -> Duration {
    guard retryShrink > .zero, bypass > 1 else { return retryDelay }
    let shrunk = retryDelay - retryShrink * (bypass - 1)
    return max(min(retryFloor, retryDelay), shrunk)
  }
}

/// The wake guard (docs/DESIGN.md §3) as a pure state machine: `(state, event, now) → (state, effects)`.
///
/// It reads no clock and performs nothing; the daemon feeds it events with the current time and
/// performs the effects it returns, in order.
public struct WakeGuardMachine: Hashable, Sendable {
  /// The open guards, oldest first. This is what is persisted.
  public private(set) var guards: [WakeGuard]
  /// The history entries of guards that closed and are not yet known to be in history, oldest
  /// first: a journal, persisted with the guards. Closing a guard removes it and adds its entry
  /// here in one `.persistGuards`, so that after a crash at any point either the guard is still
  /// open or its entry is safe (issue 8 item 8); the daemon appends the entry and then reports
  /// it with `historyRecorded(_:)`.
  public private(set) var pendingHistory: [HistoryEntry]

  public init(guards: [WakeGuard] = [], pendingHistory: [HistoryEntry] = []) {
    self.guards = guards
    self.pendingHistory = pendingHistory
  }

  /// Whether any guard is ringing.
  public var isRinging: Bool { guards.contains(where: \.isRinging) }

  /// The ring that status shows: the most recently opened ringing guard.
  public var currentRing: RingIdentity? {
    guards.last(where: \.isRinging)?.ringIdentity
  }

  /// The earliest retry deadline among quiet guards.
  public var nextRetry: Instant? {
    guards.compactMap(\.retryAt).min()
  }

  /// Moves a quiet guard's retry to `instant`: after the wall clock was stepped, a retry armed
  /// by a bypass still comes the retry delay after it in real time (the daemon measures that on
  /// a clock that does not step). Returns false when the guard is not quiet.
  public mutating func moveRetry(ofGuard id: String, to instant: Instant) -> Bool {
    guard let index = guards.firstIndex(where: { $0.id == id }), guards[index].retryAt != nil else {
      return false
    }
    guards[index].phase = .quiet(retryAt: instant)
    return true
  }

  /// The daemon has `entry` in history (appended, or found there after a crash): it leaves the
  /// journal. Returns false when it was not pending (nothing to persist).
  public mutating func historyRecorded(_ entry: HistoryEntry) -> Bool {
    guard let index = pendingHistory.firstIndex(of: entry) else { return false }
    pendingHistory.remove(at: index)
    return true
  }

  /// Takes in guards and journaled entries found in a state file that could not be read when
  /// the machine was made (issue 8 item 4): guards not open here (and not of an occurrence in
  /// `closed`, whose guard closed since) are added, entries not pending here are journaled.
  /// Returns whether anything was added; the caller resumes new guards with `.daemonStarted`.
  public mutating func adopt(
    _ others: [WakeGuard], pendingHistory entries: [HistoryEntry], except closed: Set<AlarmOccurrence>
  ) -> Bool {
    let open = Set(guards.map(\.id))
    let newGuards = others.filter { !open.contains($0.id) && !closed.contains($0.occurrence) }
    let newEntries = entries.filter { !pendingHistory.contains($0) }
    guards += newGuards
    pendingHistory += newEntries
    return !newGuards.isEmpty || !newEntries.isEmpty
  }

  /// Applies an event at `now` and returns the effects to perform, in order.
  public mutating func handle(
    _ event: WakeEvent, at now: Instant, settings: WakeGuardSettings
  ) -> [WakeEffect] {
    switch event {
    case .alarmDue(let occurrence): return alarmDue(occurrence, now: now, settings: settings)
    case .alarmMissed(let occurrence):
      var effects: [WakeEffect] = [
        .recordHistory(
          HistoryEntry(
            outcome: .missed, occurrence: occurrence, openedAt: nil, closedAt: now, bypassCount: 0, rings: 0))
      ]
      if occurrence.isOneShot { effects.append(.retireAlarm(occurrence.alarmID)) }
      return effects
    case .bypass: return bypass(now: now, settings: settings, explicit: true)
    case .socketStop: return socketStop(now: now, settings: settings)
    case .networkBypass: return networkBypass(now: now, settings: settings)
    case .ringTimeout: return bypass(now: now, settings: settings, explicit: false)
    case .retryDue: return ringDueRetries(now: now, settings: settings)
    case .tagScanned(let uid, let fresh, let reader):
      return tagScanned(uid, fresh: fresh, reader: reader, now: now, settings: settings)
    case .override: return close(where: { _ in true }, outcome: .overridden, now: now)
    case .scannedBeforeAlarm(let uid, let fresh, let reader, let occurrences):
      guard guards.isEmpty, !occurrences.isEmpty else { return [] }
      guard let name = settings.pucks[uid] else { return [.wrongTag(uid)] }
      guard fresh else { return [.tagNotFresh(uid)] }
      return endBeforeRinging(
        occurrences, outcome: .upEarly, now: now, scan: ("\(name) (\(uid.masked))", reader))
    case .overrideBeforeAlarm(let occurrences):
      guard guards.isEmpty else { return [] }
      return endBeforeRinging(occurrences, outcome: .overridden, now: now)
    case .awakeConfirmed(let occurrence):
      return [
        .recordHistory(
          HistoryEntry(
            outcome: .awake, occurrence: occurrence, openedAt: nil, closedAt: now, bypassCount: 0, rings: 0))
      ]
    case .awakeUnanswered(let occurrence):
      // Recorded first: the reopened wake-up's own entry follows when it ends.
      let reopened = HistoryEntry(
        outcome: .reopened, occurrence: occurrence, openedAt: nil, closedAt: now, bypassCount: 0, rings: 0)
      return [.recordHistory(reopened)] + alarmDue(occurrence, now: now, settings: settings)
    case .daemonStarted: return resume(now: now, settings: settings)
    }
  }

  private mutating func alarmDue(
    _ occurrence: AlarmOccurrence, now: Instant, settings: WakeGuardSettings
  ) -> [WakeEffect] {
    // Item 12: one guard per alarm. The same occurrence twice is a duplicate; a later
    // occurrence while the alarm's guard is still open rings that guard now instead of
    // opening a second one.
    if let index = guards.firstIndex(where: { $0.occurrence.alarmID == occurrence.alarmID }) {
      guard guards[index].occurrence.scheduledAt != occurrence.scheduledAt, !guards[index].isRinging
      else { return [] }
      return ringGuards(at: [index], now: now, settings: settings)
    }
    let wasRinging = isRinging
    // With no tag paired there is nothing to scan; such a guard behaves like a no-puck alarm
    // rather than locking the owner out (status already says the dock is not protected).
    let wakeGuard = WakeGuard(
      occurrence: occurrence, openedAt: now,
      requiresPuck: occurrence.requiresPuck && !settings.pucks.isEmpty)
    guards.append(wakeGuard)
    // Item 1: the guard is on disk before any sound starts.
    var effects: [WakeEffect] = [.persistGuards]
    if !wasRinging {
      effects.append(.startRing(RingIdentity(occurrence: occurrence, retry: 0)))
    }
    effects.append(.armRingTimeout(settings.ringTimeout))
    return effects
  }

  /// Silences the ringing guards and arms each one's retry, after its retry delay but no later
  /// than `quietAtMost` from now; an `explicit` stop ends a guard that needs no puck.
  private mutating func bypass(
    now: Instant, settings: WakeGuardSettings, explicit: Bool, quietAtMost: Duration? = nil
  ) -> [WakeEffect] {
    guard isRinging else { return [] }
    var effects: [WakeEffect] = []
    var closed: [WakeGuard] = []
    var remaining: [WakeGuard] = []
    for var wakeGuard in guards {
      guard wakeGuard.isRinging else {
        remaining.append(wakeGuard)
        continue
      }
      wakeGuard.bypassCount += 1
      if explicit && !wakeGuard.requiresPuck {
        // An alarm that does not require the puck just rings until stopped.
        closed.append(wakeGuard)
        continue
      }
      let delay = settings.retryDelay(afterBypass: wakeGuard.bypassCount)
      let retryAt = now.adding(quietAtMost.map { min(delay, $0) } ?? delay)
      wakeGuard.phase = .quiet(retryAt: retryAt)
      remaining.append(wakeGuard)
      effects.append(.armRetry(guardID: wakeGuard.id, at: retryAt))
    }
    guards = remaining
    // The closed guards' entries go into the journal in the same write that removes them.
    let entries = closed.map { HistoryEntry(closing: $0, outcome: .stopped, at: now) }
    pendingHistory += entries
    var result: [WakeEffect] = [.stopRing, .cancelRingTimeout, .persistGuards]
    result += effects
    for (wakeGuard, entry) in zip(closed, entries) {
      result.append(.recordHistory(entry))
      if wakeGuard.occurrence.isOneShot { result.append(.retireAlarm(wakeGuard.occurrence.alarmID)) }
    }
    return result
  }

  /// A press from the network: a bypass only as the policy allows, counted per wake-up. Never
  /// an explicit stop, so it silences and re-arms even an alarm that needs no puck.
  private mutating func networkBypass(now: Instant, settings: WakeGuardSettings) -> [WakeEffect] {
    let policy = settings.networkBypass
    guard policy.enabled else { return [.networkBypassRefused(.disabled)] }
    let ringing = guards.indices.filter { guards[$0].isRinging }
    guard !ringing.isEmpty else { return [.networkBypassRefused(.notRinging)] }
    if ringing.contains(where: { guards[$0].networkBypassCount >= policy.limit }) {
      return [.networkBypassRefused(.limitReached(policy.limit))]
    }
    let heard = heardSince(ringing, now: now)
    guard heard >= policy.minimumRing else {
      return [.networkBypassRefused(.tooSoon(remaining: policy.minimumRing - heard))]
    }
    for index in ringing { guards[index].networkBypassCount += 1 }
    return bypass(
      now: now, settings: settings, explicit: false,
      quietAtMost: WakeGuardSettings.remoteQuiet(afterHeard: heard))
  }

  /// `puckctl stop` through the control socket (docs/DESIGN.md W18): the dock button needs a
  /// person at the dock for each ring, the socket does not (a loop over SSH, a script at
  /// bedtime). So it counts only once the ring has been heard for `stopAfter`, and buys at most
  /// half that ring's length of quiet. A ring of alarms that need no puck is an ordinary alarm
  /// clock's: the stop ends it at once, as the button does.
  private mutating func socketStop(now: Instant, settings: WakeGuardSettings) -> [WakeEffect] {
    let enforced = guards.indices.filter { guards[$0].isRinging && guards[$0].requiresPuck }
    guard !enforced.isEmpty else { return bypass(now: now, settings: settings, explicit: true) }
    let heard = heardSince(enforced, now: now)
    guard heard >= settings.stopAfter else {
      return [.socketStopRefused(remaining: settings.stopAfter - heard)]
    }
    return bypass(
      now: now, settings: settings, explicit: true,
      quietAtMost: WakeGuardSettings.remoteQuiet(afterHeard: heard))
  }

  /// How long the guards at `indices` have all been ringing: since the latest of their rings began.
  private func heardSince(_ indices: [Int], now: Instant) -> Duration {
    guard let since = indices.compactMap({ guards[$0].ringingSince }).max() else { return .zero }
    return .seconds(max(0, now.seconds(since: since)))
  }

  private mutating func ringDueRetries(now: Instant, settings: WakeGuardSettings) -> [WakeEffect] {
    let due = guards.indices.filter { index in
      guards[index].retryAt.map { $0 <= now } ?? false
    }
    guard !due.isEmpty else { return [] }
    return ringGuards(at: due, now: now, settings: settings)
  }

  /// Moves quiet guards to ringing (each ring after the first is a retry).
  private mutating func ringGuards(at indices: [Int], now: Instant, settings: WakeGuardSettings)
    -> [WakeEffect]
  {
    let wasRinging = isRinging
    var effects: [WakeEffect] = []
    for index in indices where !guards[index].isRinging {
      effects.append(.cancelRetry(guardID: guards[index].id))
      guards[index].phase = .ringing(since: now)
      guards[index].ringCount += 1
    }
    guard !effects.isEmpty else { return [] }
    var result: [WakeEffect] = [.persistGuards]
    result += effects
    if !wasRinging, let ring = currentRing {
      result.append(.startRing(ring))
    }
    result.append(.armRingTimeout(settings.ringTimeout))
    return result
  }

  private mutating func tagScanned(
    _ uid: TagUID, fresh: Bool, reader: String?, now: Instant, settings: WakeGuardSettings
  ) -> [WakeEffect] {
    guard !guards.isEmpty else { return [] }
    guard let name = settings.pucks[uid] else { return [.wrongTag(uid)] }
    guard fresh else { return [.tagNotFresh(uid)] }
    // Item 9: one valid scan of any paired puck resolves every open guard. History keeps which
    // puck (its name and masked UID, as every record of a UID outside the pairing file) and
    // which reader.
    return close(
      where: { _ in true }, outcome: .woke, now: now, scan: ("\(name) (\(uid.masked))", reader))
  }

  /// Closes the guards matching `predicate`, silencing the ring if nothing else rings.
  private mutating func close(
    where predicate: (WakeGuard) -> Bool, outcome: HistoryEntry.Outcome, now: Instant,
    scan: (puck: String, reader: String?)? = nil
  ) -> [WakeEffect] {
    let closing = guards.filter(predicate)
    guard !closing.isEmpty else { return [] }
    let wasRinging = isRinging
    guards.removeAll(where: predicate)
    var effects: [WakeEffect] = []
    if wasRinging && !isRinging {
      effects += [.stopRing, .cancelRingTimeout]
    }
    for wakeGuard in closing where !wakeGuard.isRinging {
      effects.append(.cancelRetry(guardID: wakeGuard.id))
    }
    // Journal first: the write that removes the guards also holds their entries, so no crash
    // can leave a closed guard without its entry (nor, as appending first would, an entry for a
    // guard that reopens and is recorded again).
    let entries = closing.map { wakeGuard in
      var entry = HistoryEntry(closing: wakeGuard, outcome: outcome, at: now)
      entry.puck = scan?.puck
      entry.reader = scan?.reader
      return entry
    }
    pendingHistory += entries
    effects.append(.persistGuards)
    for (wakeGuard, entry) in zip(closing, entries) {
      effects.append(.recordHistory(entry))
      if wakeGuard.occurrence.isOneShot {
        effects.append(.retireAlarm(wakeGuard.occurrence.alarmID))
      }
    }
    return effects
  }

  /// Ends occurrences that have not rung yet (docs/DESIGN.md S12): their entries are journaled
  /// in the write before anything else (a kill then leaves the entry and an occurrence that
  /// still rings, the loud side), then each is kept from ringing: a one-shot is retired, a
  /// repeating alarm skips that date.
  private mutating func endBeforeRinging(
    _ occurrences: [AlarmOccurrence], outcome: HistoryEntry.Outcome, now: Instant,
    scan: (puck: String, reader: String?)? = nil
  ) -> [WakeEffect] {
    let entries = occurrences.map { occurrence in
      var entry = HistoryEntry(
        outcome: outcome, occurrence: occurrence, openedAt: nil, closedAt: now, bypassCount: 0, rings: 0)
      entry.puck = scan?.puck
      entry.reader = scan?.reader
      return entry
    }
    pendingHistory += entries
    var effects: [WakeEffect] = [.persistGuards]
    for occurrence in occurrences {
      effects.append(occurrence.isOneShot ? .retireAlarm(occurrence.alarmID) : .dismissOccurrence(occurrence))
    }
    return effects + entries.map { .recordHistory($0) }
  }

  /// Item 10: after a start, a guard that was ringing rings at once, a guard whose retry time
  /// has passed rings at once, and any other guard re-arms its retry.
  private mutating func resume(now: Instant, settings: WakeGuardSettings) -> [WakeEffect] {
    guard !guards.isEmpty else { return [] }
    var effects: [WakeEffect] = []
    var ringNow: [Int] = []
    for index in guards.indices {
      switch guards[index].phase {
      case .ringing:
        // Restart the ring: it was interrupted by the crash, so it counts as the same ring.
        guards[index].phase = .ringing(since: now)
        ringNow.append(index)
      case .quiet(let retryAt) where retryAt <= now:
        guards[index].phase = .ringing(since: now)
        guards[index].ringCount += 1
        ringNow.append(index)
      case .quiet(let retryAt):
        effects.append(.armRetry(guardID: guards[index].id, at: retryAt))
      }
    }
    var result: [WakeEffect] = []
    if !ringNow.isEmpty {
      result.append(.persistGuards)
      if let ring = currentRing { result.append(.startRing(ring)) }
      result.append(.armRingTimeout(settings.ringTimeout))
    }
    return result + effects
  }
}
