import PuckCore
import PuckSystem

/// `puckctl test`: a rehearsal that is not a wake-up. It rings for a few seconds at the starting
/// volume with the buzzer pattern, then asks for the puck and waits for a scan, and reports one
/// line per part (every device, and the puck); it fails if any part did. A wake-up that starts,
/// the dock button, `puckctl stop` or the client going away interrupts it.
final class RehearsalFlow {
  private enum Phase {
    case ringing(scanSeconds: Int)
    case waitingForScan(seconds: Int)
  }

  private let dock: DockContext
  private let devices: DockDevices
  /// The rehearsal going on, if any, and its phase.
  private var session: ClientSession<Phase>?

  init(dock: DockContext, devices: DockDevices) {
    self.dock = dock
    self.devices = devices
  }

  var isRunning: Bool { session != nil }

  /// Whether it waits for a scan (then the reader polls and scans come here).
  var isWaitingForScan: Bool {
    if case .waitingForScan? = session?.detail { return true }
    return false
  }

  /// Rings for `seconds`, then waits `scanSeconds` for the puck; a refusal is thrown.
  func start(seconds: Int, scanSeconds: Int, client: ControlServer.Client) throws(ControlFailure) {
    guard devices.ringer.ringing == nil, session == nil else {
      throw ControlFailure(.refused, "the dock is ringing; a rehearsal would get in the way")
    }
    session = try ControlFailure.failing {
      try ClientSession(
        client: client, detail: .ringing(scanSeconds: scanSeconds), dock: dock, after: .seconds(seconds)
      ) { [unowned self] in self.timerFired() }
    }
    Log.info("rehearsal: ringing for \(seconds) s")
    devices.ringer.startRehearsal()
  }

  private func timerFired() {
    guard let current = session else { return }
    switch current.detail {
    case .ringing(let scanSeconds):
      devices.ringer.stopRehearsal()
      guard scanSeconds > 0, !current.client.isClosed else {
        finish(puck: nil)
        return
      }
      try? current.extend(after: .seconds(scanSeconds))
      session?.detail = .waitingForScan(seconds: scanSeconds)
      current.client.send(.progress("scan your puck now… (\(scanSeconds) s)"))
      dock.changes.mark(.polling)
    case .waitingForScan(let seconds):
      finish(puck: (failed: true, detail: "no tag within \(seconds) s"))
    }
  }

  /// A tag while the rehearsal waits for one. A tag that was already lying on the reader is
  /// not a scan, as for a wake-up (docs/DESIGN.md W7): the rehearsal says so and waits on.
  func scanned(_ uid: TagUID, fresh: Bool) {
    guard isWaitingForScan, let current = session else { return }
    guard fresh else {
      current.client.send(
        .progress(
          "a tag was already on the reader; a wake-up would not take it: lift it and present it again"))
      return
    }
    if let puck = dock.state.pairing.pairing.puck(uid) {
      finish(puck: (failed: false, detail: "the paired puck \(puck.display) was read"))
    } else if dock.state.pairing.isPaired {
      let paired = dock.state.pairing.pucks.map(\.display).joined(separator: ", ")
      let which = dock.state.pairing.pucks.count == 1 ? "the paired tag" : "one of the paired pucks"
      finish(puck: (failed: true, detail: "read \(uid.masked), not \(which) (\(paired))"))
    } else {
      finish(puck: (failed: true, detail: "read \(uid.masked), but no tag is paired (sudo puckctl pair)"))
    }
  }

  /// Interrupted: by a wake-up, the button, `puckctl stop`.
  func interrupt() {
    guard let current = session else { return }
    end(current)
    current.client.send(.failure(.failed, "rehearsal interrupted"))
  }

  /// A connection closed: a rehearsal waiting on it is interrupted.
  func clientClosed(_ client: ControlServer.Client) {
    if let current = session, current.client === client { interrupt() }
  }

  /// Ends the rehearsal with one line per device and, when it asked for it, the puck.
  private func finish(puck: (failed: Bool, detail: String)?) {
    guard let current = session else { return }
    end(current)
    guard !current.client.isClosed else { return }
    devices.readers.refreshProgress()
    let health = devices.health()
    var lines = health.map {
      "\($0.name): \($0.state.rawValue)\($0.detail.isEmpty ? "" : " — \($0.detail)")"
        + ($0.next.map { " — next: \($0)" } ?? "")
    }
    if let puck { lines.append("puck: \(puck.failed ? "FAILED" : "ok") — \(puck.detail)") }
    let failed = health.contains { $0.state == .fault } || puck?.failed == true
    current.client.send(
      failed
        ? .failure(.failed, (["rehearsal found a fault:"] + lines).joined(separator: "\n"))
        : .success((["rehearsal done:"] + lines).joined(separator: "\n")))
  }

  private func end(_ current: ClientSession<Phase>) {
    let wasWaiting = isWaitingForScan
    session = nil
    current.end()
    devices.ringer.stopRehearsal()
    if wasWaiting { dock.changes.mark(.polling) }
  }
}
