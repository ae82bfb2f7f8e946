import Glibc
import PuckCore
import PuckDevices
import PuckSystem

/// How the components reach each other: the callbacks `init` sets, and where a scan goes.
extension Daemon {
  /// The back edges between components: each is told whom to notify, never handed the others.
  func wire() {
    state.files.onHeld = { [unowned self] in self.retry.arm() }
    ringer.onChange = { [unowned self] in
      self.preflight.somethingChanged()
      self.status.update()
    }
    readers.onChange = { [unowned self] in
      self.preflight.somethingChanged()
      self.status.update()
    }
    readers.wakeUpIsOpen = { [unowned self] in self.enforcement.isOpen }
    readers.onScan = { [unowned self] uid, fresh in
      self.homeAssistant.tagScanned(uid, reader: "dock")
      self.tagScanned(uid, fresh: fresh, reader: "dock")
    }
    remoteReaders.onChange = { [unowned self] in
      self.preflight.somethingChanged()
      self.status.update()
      self.homeAssistant.readersChanged(self.scannerNames)
    }
    remoteReaders.wakeUpIsOpen = { [unowned self] in self.enforcement.isOpen }
    remoteReaders.onScan = { [unowned self] uid, fresh, reader in
      self.homeAssistant.tagScanned(uid, reader: reader)
      self.tagScanned(uid, fresh: fresh, reader: reader)
    }
    status.onUpdate = { [unowned self] status, next in
      self.homeAssistant.statusChanged(status, next: next, wakeUps: self.enforcement.guards)
    }
    enforcement.onEvent = { [unowned self] event in self.homeAssistant.event(event) }
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
    rehearsal.onChange = { [unowned self] in self.updateReaderPolling() }
    enforcement.afterEvent = { [unowned self] event, changed in
      // Pairing is refused while a wake-up is open (docs/DESIGN.md P3).
      self.pairingFlow.wakeUpOpened()
      self.overrides.wakeUpChanged(after: event, changed: changed)
      if changed { self.schedule.refresh() }
    }
    enforcement.onJournalChanged = { [unowned self] in self.retry.arm() }
    enforcement.willClose = { [unowned self] entry in self.awake.closing(entry) }
    awake.onChange = { [unowned self] in self.status.update() }
    missed.save = { [unowned self] in self.enforcement.save() }
    missed.onFailure = { [unowned self] in self.retry.arm() }
    missed.onRecorded = { [unowned self] in self.status.update() }
    schedule.onRefresh = { [unowned self] in
      self.updateReaderPolling()
      self.status.update()
    }
    schedule.checkDue = { [unowned self] in self.preflight.run(.beforeAlarm) }
    preflight.onFinished = { [unowned self] in self.status.update() }
    retry.onRetried = { [unowned self] in self.status.update() }
    overrides.onChange = { [unowned self] in self.status.update() }
    pairingFlow.onChange = { [unowned self] in
      self.preflight.somethingChanged()
      self.updateReaderPolling()
      self.status.update()
    }
    // A reader thread stuck inside libnfc is found at each tick and reported as a fault.
    watchdog.onTick = { [unowned self] in self.readers.refreshProgress() }
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
