import Glibc
import PuckCore
import PuckDevices
import PuckSystem

/// How the components reach each other: the callbacks `init` sets, where a scan goes, and what
/// the end of each loop turn does with the changes the components marked.
extension Daemon {
  /// The back edges between components: each is told whom to notify, never handed the others.
  /// What only changes what the dock shows is not wired here: it is marked in `DockChanges`.
  func wire() {
    state.files.onHeld = { [unowned self] in self.retry.arm() }
    readers.wakeUpIsOpen = { [unowned self] in self.enforcement.isOpen }
    readers.onScan = { [unowned self] uid, fresh in
      self.homeAssistant.tagScanned(uid, reader: "dock")
      self.tagScanned(uid, fresh: fresh, reader: "dock")
    }
    remoteReaders.wakeUpIsOpen = { [unowned self] in self.enforcement.isOpen }
    remoteReaders.onScan = { [unowned self] uid, fresh, reader in
      self.homeAssistant.tagScanned(uid, reader: reader)
      self.tagScanned(uid, fresh: fresh, reader: reader)
    }
    homeAssistant.onBypass = { [unowned self] in
      // A press from the network: a bypass only as [homeassistant] allows (docs/DESIGN.md M9);
      // it silences and re-arms, and never ends a wake-up.
      for case .networkBypassRefused(let refusal) in self.enforcement.handle(.networkBypass) {
        return refusal
      }
      return nil
    }
    router.onScan = { [unowned self] uid, fresh in self.tagScanned(uid, fresh: fresh, reader: "simulated") }
    enforcement.willRing = { [unowned self] in self.rehearsal.interrupt() }
    enforcement.afterEvent = { [unowned self] event, changed in
      // Pairing is refused while a wake-up is open (docs/DESIGN.md P3).
      self.pairingFlow.wakeUpOpened()
      self.overrides.wakeUpChanged(after: event, changed: changed)
      if changed { self.schedule.refresh() }
    }
    enforcement.onJournalChanged = { [unowned self] in self.retry.arm() }
    enforcement.willClose = { [unowned self] entry in self.awake.closing(entry) }
    missed.onFailure = { [unowned self] in self.retry.arm() }
    schedule.checkDue = { [unowned self] in self.preflight.run(.beforeAlarm) }
    // A reader thread stuck inside libnfc is found at each tick and reported as a fault.
    watchdog.onTick = { [unowned self] in self.readers.refreshProgress() }
  }

  /// The end of a loop turn: what the components marked, acted on once (`DockChanges`), status
  /// rendered last. A step may mark more (a check that has its answers marks status): a few
  /// rounds settle it, and status is still rendered once.
  func endOfTurn() {
    var render = false
    for _ in 0..<4 {
      let changed = changes.take()
      if changed.isEmpty { break }
      if changed.contains(.devices) { preflight.somethingChanged() }
      if changed.contains(.polling) { updateReaderPolling() }
      if changed.contains(.readers) { homeAssistant.readersChanged(scannerNames) }
      render = render || changed.contains(.status)
    }
    if render { status.render() }
  }

  /// A tag from the reader or a simulated scan: to pairing if it is waiting, else to the guard;
  /// then a paired puck's `lastSeen` moves (saved after the ring was handled, never before).
  func tagScanned(_ uid: TagUID, fresh: Bool, reader: String) {
    if pairingFlow.isWaiting {
      pairingFlow.scanned(uid, fresh: fresh)
      return
    } else if rehearsal.isWaitingForScan {
      rehearsal.scanned(uid, fresh: fresh)
    } else {
      enforcement.tagScanned(uid, fresh: fresh, reader: reader)
    }
    state.pairing.noteSeen(uid, at: environment.time.instant)
  }

  /// The readers Home Assistant sees as tag scanners: the dock's own (`dock`) and the remote ones.
  var scannerNames: [String] {
    (settings.config.reader.device == .none || settings.simulated ? [] : ["dock"]) + remoteReaders.names
  }

  /// The reader polls (RF field on) only while a wake-up is open or a pairing waits for a tag.
  func updateReaderPolling() {
    let wanted = enforcement.isOpen || pairingFlow.isWaiting || rehearsal.isWaitingForScan
    readers.setPolling(wanted)
    remoteReaders.setPolling(wanted)
  }
}
