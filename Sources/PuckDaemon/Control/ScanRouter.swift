import PuckCore

/// Where a tag goes, whichever reader read it (the dock's, a remote one) or `puckctl scan`
/// simulated it: to a pairing that waits for a tag, else to a rehearsal that waits for the
/// puck, else to the wake guards; then a paired puck's `lastSeen` moves (saved after the ring
/// was handled, never before). Home Assistant sees every tag a reader read.
final class ScanRouter {
  private let dock: DockContext
  private let enforcement: Enforcement
  private let flows: ControlFlows
  private let homeAssistant: HomeAssistantBridge

  init(dock: DockContext, enforcement: Enforcement, flows: ControlFlows, homeAssistant: HomeAssistantBridge) {
    self.dock = dock
    self.enforcement = enforcement
    self.flows = flows
    self.homeAssistant = homeAssistant
  }

  /// A tag a reader read: `dock`, or the remote reader's name.
  func read(_ uid: TagUID, fresh: Bool, reader: String) {
    homeAssistant.tagScanned(uid, reader: reader)
    scanned(uid, fresh: fresh, reader: reader)
  }

  /// A tag `puckctl scan` simulated (`puckd --simulate` only).
  func simulated(_ uid: TagUID) {
    scanned(uid, fresh: true, reader: "simulated")
  }

  private func scanned(_ uid: TagUID, fresh: Bool, reader: String) {
    if flows.pairing.isWaiting {
      flows.pairing.scanned(uid, fresh: fresh)
      return
    } else if flows.rehearsal.isWaitingForScan {
      flows.rehearsal.scanned(uid, fresh: fresh)
    } else {
      enforcement.tagScanned(uid, fresh: fresh, reader: reader)
    }
    dock.state.pairing.noteSeen(uid, at: dock.time.instant)
  }
}
