import Glibc
import PuckCore
import PuckDevices
import PuckSystem

/// How the components reach each other after they are built: the back edges.
extension Daemon {
  /// The back edges between components, each a closure over the component it reaches (never
  /// over the daemon: a scan or an event goes from component to component, and the
  /// composition root is on no path but the loop's message dispatch). What only changes what
  /// the dock shows is not wired here: it is marked in `DockChanges` and acted on by `TurnEnd`.
  func wire() {
    state.files.onHeld = { [unowned retry] in retry.arm() }
    readers.wakeUpIsOpen = { [unowned enforcement] in enforcement.isOpen }
    readers.onScan = { [unowned scans] uid, fresh in scans.read(uid, fresh: fresh, reader: "dock") }
    remoteReaders.wakeUpIsOpen = { [unowned enforcement] in enforcement.isOpen }
    remoteReaders.onScan = { [unowned scans] uid, fresh, reader in
      scans.read(uid, fresh: fresh, reader: reader)
    }
    homeAssistant.onBypass = { [unowned enforcement] in
      // A press from the network: a bypass only as [homeassistant] allows (docs/DESIGN.md M9);
      // it silences and re-arms, and never ends a wake-up.
      for case .networkBypassRefused(let refusal) in enforcement.handle(.networkBypass) {
        return refusal
      }
      return nil
    }
    router.onScan = { [unowned scans] uid, _ in scans.simulated(uid) }
    // `puckctl reload` is SIGHUP asked over the socket: the composition root's own work, the
    // one back edge that reaches the daemon.
    router.onReload = { [unowned self] in
      self.reload()
      return self.settings.configProblem
    }
    enforcement.willRing = { [unowned rehearsal] in rehearsal.interrupt() }
    enforcement.afterEvent = { [unowned pairingFlow, unowned overrides, unowned schedule] event, changed in
      // Pairing is refused while a wake-up is open (docs/DESIGN.md P3).
      pairingFlow.wakeUpOpened()
      overrides.wakeUpChanged(after: event, changed: changed)
      if changed { schedule.refresh() }
    }
    enforcement.onJournalChanged = { [unowned retry] in retry.arm() }
    enforcement.willClose = { [unowned awake] entry in awake.closing(entry) }
    missed.onFailure = { [unowned retry] in retry.arm() }
    schedule.checkDue = { [unowned preflight] in preflight.run(.beforeAlarm) }
    // A reader thread stuck inside libnfc is found at each tick and reported as a fault.
    watchdog.onTick = { [unowned readers] in readers.refreshProgress() }
  }

  /// Every back edge the components declare (`Wired`), by name, and whether `wire()` set it.
  /// Read by reflection from the components the daemon holds and the values and objects they
  /// hold in turn, two levels down (`DockState.files` is one), never into collections; so
  /// `DaemonWiringTests` names a slot added without its line in `wire()`, instead of the first
  /// test that happens to reach it trapping.
  public var backEdges: [String: Bool] {
    var edges: [String: Bool] = [:]
    var seen: Set<ObjectIdentifier> = [ObjectIdentifier(self)]
    func visit(_ value: Any, depth: Int) {
      if let slot = value as? WiredSlot {
        edges[slot.slotName] = slot.isWired
        return
      }
      let mirror = Mirror(reflecting: value)
      switch mirror.displayStyle {
      case .class?:
        guard seen.insert(ObjectIdentifier(value as AnyObject)).inserted else { return }
      case .struct?, .optional?: break
      default: return
      }
      guard depth > 0 else { return }
      for child in mirror.children { visit(child.value, depth: depth - 1) }
    }
    for component in Mirror(reflecting: self).children { visit(component.value, depth: 2) }
    return edges
  }
}
