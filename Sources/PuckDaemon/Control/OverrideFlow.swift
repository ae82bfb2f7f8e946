import PuckCore
import PuckSystem

/// `sudo puckctl override`: the way out that is not free (docs/DESIGN.md W17). It closes every
/// open wake-up without a scan only after `override_delay` has passed with the ring going on;
/// the client waits and counts down. Ctrl-C (the client going away) or `override --cancel`
/// stops it; a scan meanwhile ends the wake-up as usual and the override with it. Nothing is
/// kept on disk: a restart during the delay leaves the wake-up open, the safe direction.
final class OverrideFlow {
  private let dock: DockContext
  private let enforcement: Enforcement
  /// The hour before each alarm: with no wake-up open, an override ends what is locked.
  private let lock: LockWindow
  /// The override counting down, if any, and when it closes the wake-ups.
  private var session: ClientSession<Instant>?
  /// When the override counting down closes the wake-ups.
  var closesAt: Instant? { session?.detail }
  /// What it ends when it counts down before the alarm, with no wake-up open: the occurrences
  /// locked when root asked (not what becomes locked meanwhile); nil for an override of the
  /// open wake-ups.
  private var beforeAlarm: [AlarmOccurrence]?

  init(dock: DockContext, enforcement: Enforcement, lock: LockWindow) {
    self.dock = dock
    self.enforcement = enforcement
    self.lock = lock
  }

  /// Starts the countdown (or, with no delay, closes the wake-ups now); a refusal is thrown.
  /// With no wake-up open, inside the hour before an alarm, it ends the locked alarms before
  /// they ring, after the same delay: root's one way past the lock (docs/DESIGN.md S12).
  func start(client: ControlServer.Client) throws(ControlFailure) {
    let before = !enforcement.isOpen
    guard !before || !lock.locked().isEmpty else {
      client.send(.nothingToDo("no wake-up is open"))
      return
    }
    let delay = dock.settings.config.enforcement.overrideDelay
    // The cost is the ring: a wake-up silenced by a stop is overridden once it rings again
    // (with no delay configured, there is no cost to wait for). Before the alarm, the wait is.
    guard before || enforcement.machine.isRinging || delay == .zero else {
      throw ControlFailure(
        .refused,
        "the wake-up is quiet after a stop; an override counts down only while the ring goes on: "
          + "run it again once it rings")
    }
    if let current = session {
      throw ControlFailure(
        .refused,
        "an override is already counting down (it closes the wake-ups \(dock.settings.describe(current.detail))); "
          + "sudo puckctl override --cancel stops it")
    }
    Log.warning(
      "override requested by uid \(client.peer.uid) (pid \(client.peer.pid)); "
        + (delay > .zero
          ? "the wake-ups close in \(delay) unless it is cancelled" : "closing the wake-ups now"))
    guard delay > .zero else {
      close(replyingTo: client)
      return
    }
    let closesAt = dock.time.instant.adding(delay)
    beforeAlarm = before ? lock.locked() : nil
    session = try ControlFailure.failing {
      try ClientSession(client: client, detail: closesAt, dock: dock, after: delay) { [unowned self] in
        self.delayPassed()
      }
    }
    client.send(
      .progress(
        before
          ? "the locked alarm(s) end WITHOUT a scan before they ring \(dock.settings.describe(closesAt)) (in \(delay)). "
            + "Ctrl-C or 'sudo puckctl override --cancel' stops it; scanning the puck ends them at once"
          : "the ring goes on; every open wake-up closes WITHOUT a scan \(dock.settings.describe(closesAt)) (in \(delay)). "
            + "Ctrl-C or 'sudo puckctl override --cancel' stops it; scanning the puck ends the wake-up as usual"
      ))
    dock.changes.mark(.status)
  }

  /// `override --cancel`.
  func cancel(by client: ControlServer.Client) {
    guard session != nil else {
      client.send(.nothingToDo("no override is counting down"))
      return
    }
    end(.failure(.failed, "override cancelled; the wake-up stays open"))
    Log.notice("override cancelled by uid \(client.peer.uid); the wake-up stays open")
    client.send(.success("override cancelled; the wake-up stays open"))
  }

  /// After every wake-guard event: a scan that ended the wake-up ends the override too, and a
  /// stop (the button, `puckctl stop`, Home Assistant) cancels it, since it counts down only
  /// while the ring goes on. A ring timeout meanwhile does not (nobody touched the ring), nor
  /// a stop that changed nothing.
  func wakeUpChanged(after event: WakeEvent, changed: Bool) {
    guard session != nil else { return }
    if beforeAlarm != nil {
      if enforcement.isOpen {
        // The cost of an override is its delay with the ring going on: one that began before
        // the alarm does not carry over into its ring.
        Log.notice("override cancelled: the alarm rang before its delay had passed")
        end(
          .failure(
            .failed,
            "override cancelled: the alarm rang before the delay had passed; run it again while it rings"))
      } else if lock.locked().isEmpty {
        Log.notice("override not needed: the locked alarm ended with a scan")
        end(.success("the locked alarm ended with a scan meanwhile; nothing was overridden"))
      }
    } else if !enforcement.isOpen {
      Log.notice("override not needed: the wake-up ended by a scan")
      end(.success("the wake-up ended with a scan meanwhile; nothing was overridden"))
    } else if event == .bypass || event == .socketStop || event == .networkBypass, changed {
      Log.notice("override cancelled: the ring was stopped; the wake-up stays open")
      end(
        .failure(
          .failed,
          "override cancelled: the ring was stopped, and an override counts down only while it goes on; "
            + "the wake-up stays open"))
    }
  }

  /// A connection closed: an override waiting on it is abandoned (Ctrl-C).
  func clientClosed(_ client: ControlServer.Client) {
    guard let current = session, current.client === client else { return }
    Log.notice("override abandoned (puckctl went away); the wake-up stays open")
    end(nil)
  }

  private func delayPassed() {
    guard let current = session else { return }
    let asked = beforeAlarm
    end(nil)
    close(replyingTo: current.client, asked: asked)
  }

  private func end(_ reply: ControlReply?) {
    guard let current = session else { return }
    session = nil
    beforeAlarm = nil
    current.end(reply)
    dock.changes.mark(.status)
  }

  /// Closes every open wake-up without a scan (or, with none open, ends the locked alarms before
  /// they ring), records it, and answers `client`.
  private func close(replyingTo client: ControlServer.Client, asked: [AlarmOccurrence]? = nil) {
    guard enforcement.isOpen else {
      // Only what root asked to end (all that is locked, with no delay), and is still to come.
      let locked = lock.locked().filter { asked?.contains($0) ?? true }
      guard !locked.isEmpty else {
        client.send(.nothingToDo("no wake-up is open"))
        return
      }
      enforcement.handle(.overrideBeforeAlarm(locked), with: [.overridden(at: dock.time.instant)])
      let names = locked.map(\.displayName).joined(separator: ", ")
      client.send(.success("ended \(names) WITHOUT a scan before it rang; recorded in history"))
      return
    }
    let count = enforcement.guards.count
    enforcement.handle(.override, with: [.overridden(at: dock.time.instant)])
    let recorded =
      !enforcement.historyIsWaiting
      ? "recorded in history"
      : "NOT yet recorded in history (\(dock.state.journal.failure ?? "pending")); kept in \(EnforcementRecord.fileName) and retried"
    client.send(.success("closed \(count) wake-up\(count == 1 ? "" : "s") WITHOUT a scan; \(recorded)"))
  }
}
