import PuckCore

/// What the end of each loop turn does with the changes the components marked in
/// `DockChanges` (`EventLoop.atEndOfEachTurn`): a pre-flight check waiting for answers looks
/// again, the readers poll or stop, Home Assistant learns the tag scanners, and status is
/// rendered last, once, however many components changed in the turn.
final class TurnEnd {
  private let dock: DockContext
  private let devices: DockDevices
  private let enforcement: Enforcement
  private let flows: ControlFlows
  private let status: StatusReporter
  private let homeAssistant: HomeAssistantBridge
  private let lock: LockWindow

  init(
    dock: DockContext, devices: DockDevices, enforcement: Enforcement, flows: ControlFlows,
    status: StatusReporter, homeAssistant: HomeAssistantBridge, lock: LockWindow
  ) {
    self.lock = lock
    self.dock = dock
    self.devices = devices
    self.enforcement = enforcement
    self.flows = flows
    self.status = status
    self.homeAssistant = homeAssistant
  }

  /// Acts on what was marked, status last. A step may mark more (a check that has its answers
  /// marks status): a few rounds settle it, and status is still rendered once.
  func run() {
    var render = false
    for _ in 0..<4 {
      let changed = dock.changes.take()
      if changed.isEmpty { break }
      if changed.contains(.devices) { flows.preflight.somethingChanged() }
      if changed.contains(.polling) { updatePolling() }
      if changed.contains(.readers) { homeAssistant.readersChanged(scannerNames) }
      render = render || changed.contains(.status)
    }
    if render { status.render() }
  }

  /// The readers poll (RF field on) only while a wake-up is open, an alarm is locked and a puck
  /// is paired (a scan in the hour before ends it early, docs/DESIGN.md S12; with no puck there
  /// is nothing to look for, and a tag left on the reader would be stale for a pairing), a
  /// pairing waits for a tag or a rehearsal waits for the puck.
  func updatePolling() {
    let early = !dock.state.pairing.pucks.isEmpty && !lock.locked(early: true).isEmpty
    let wanted = enforcement.isOpen || early || flows.pairing.isWaiting || flows.rehearsal.isWaitingForScan
    devices.readers.setPolling(wanted)
    devices.remoteReaders.setPolling(wanted)
  }

  /// The readers Home Assistant sees as tag scanners: the dock's own (`dock`) and the remote ones.
  var scannerNames: [String] {
    let settings = dock.settings
    return (settings.config.reader.device == .none || settings.simulated ? [] : ["dock"])
      + devices.remoteReaders.names
  }
}
