import PuckCore
import PuckStorage
import PuckSystem

/// `puckctl pair` and `unpair` (docs/DESIGN.md §5): waits for a tag, then the same tag again,
/// and adds it to the pucks under a name (P6). Refused while a wake-up is open (P3); a
/// wake-up that opens meanwhile cancels it, and the scans belong to the wake-up then.
final class PairingFlow {
  /// What a `puckctl pair` in progress keeps: the name the puck gets, and the tag seen first
  /// (pairing takes the same tag twice).
  private struct Enrolment {
    let name: String
    /// How long each of the two scans is waited for, in seconds.
    let timeout: Int
    var first: TagUID?
  }

  private let dock: DockContext
  /// Whether a wake-up is open: pairing is refused then (docs/DESIGN.md P3).
  private let wakeUpIsOpen: () -> Bool
  /// The hour before each alarm: the last puck stays paired then (docs/DESIGN.md S12).
  private let lock: LockWindow
  /// The pairing waiting for a tag, if any.
  private var session: ClientSession<Enrolment>?

  init(dock: DockContext, lock: LockWindow, wakeUpIsOpen: @escaping () -> Bool) {
    self.dock = dock
    self.lock = lock
    self.wakeUpIsOpen = wakeUpIsOpen
  }

  /// Whether a pairing waits for a tag (then the reader polls and scans come here).
  var isWaiting: Bool { session != nil }

  /// Waits `timeout` seconds for a tag to pair as `given` (or the next default name); a
  /// refusal is thrown.
  func start(timeout: Int, name given: String?, client: ControlServer.Client) throws(ControlFailure) {
    guard !wakeUpIsOpen() else {
      throw ControlFailure(
        .refused, "a wake-up is open; pairing is refused until it is ended with the paired tag")
    }
    guard session == nil else {
      throw ControlFailure(.refused, "another pairing is already waiting for a tag")
    }
    let pairing = dock.state.pairing.pairing
    let name = given ?? pairing.nextDefaultName
    guard pairing.puck(named: name) == nil else {
      throw ControlFailure(
        .refused, "a puck is already named '\(name)'; choose another name (--name) or unpair it first")
    }
    guard pairing.pucks.count < Pairing.maximumPucks else {
      throw ControlFailure(
        .refused, "\(Pairing.maximumPucks) pucks are paired, the most a dock keeps; unpair one first")
    }
    session = try ControlFailure.failing {
      try ClientSession(
        client: client, detail: Enrolment(name: name, timeout: timeout), dock: dock, after: .seconds(timeout)
      ) { [unowned self] in self.expired() }
    }
    dock.changes.mark([.devices, .polling, .status])
    Log.info("pairing: waiting for a tag (\(timeout) s) to pair as '\(name)'")
    let source = dock.settings.simulated ? " (simulated: send it with puckctl scan UID)" : ""
    client.send(.progress("waiting for a tag on the reader\(source)… (\(timeout) s)"))
  }

  /// A wake-up opened: a waiting pairing ends with a refusal.
  func wakeUpOpened() {
    guard session != nil, wakeUpIsOpen() else { return }
    cancel(because: "an alarm started ringing; pairing is refused until the wake-up is over")
  }

  private func cancel(because reason: String) {
    Log.notice("pairing cancelled: \(reason)")
    finish(.failure(.refused, reason))
  }

  /// A scan while the pairing waits.
  func scanned(_ uid: TagUID, fresh: Bool) {
    guard var current = session else { return }
    guard !wakeUpIsOpen() else {
      cancel(because: "a wake-up is open; pairing is refused until it is ended with the paired tag")
      return
    }
    do {
      try uid.validateForPairing()
    } catch {
      current.client.send(.progress("\(error) — present a tag"))
      return
    }
    guard let first = current.detail.first else {
      current.detail.first = uid
      session = current
      // The second scan gets the whole timeout too: the first may have come at its last second.
      do {
        try current.extend(after: .seconds(current.detail.timeout))
      } catch {
        Log.warning("pairing: the wait for the second scan keeps the first's deadline: \(error)")
      }
      current.client.send(.progress("got \(uid.masked); lift it and present the same tag again to confirm"))
      return
    }
    guard first == uid else {
      finish(
        .failure(.failed, "the second tag (\(uid.masked)) is not the first (\(first.masked)); nothing paired")
      )
      return
    }
    if let paired = dock.state.pairing.pairing.puck(uid) {
      finish(.failure(.refused, "this tag is already paired, as \(paired.display); nothing changed"))
      return
    }
    let puck = PairedTag(
      uid: uid, pairedAt: dock.time.instant, name: current.detail.name, lastSeen: dock.time.instant)
    do {
      try dock.state.pairing.add(puck)
    } catch {
      finish(.failure(.failed, "could not save the pairing: \(error)"))
      return
    }
    Log.notice("paired \(puck.display)")
    let count = dock.state.pairing.pucks.count
    let others = count > 1 ? " \(count) pucks are paired; any of them ends a wake-up." : ""
    finish(
      .success(
        "paired \(puck.display).\(others) Put it where you must walk to (the kitchen, not the nightstand)."))
  }

  /// The scan waited for did not come in time.
  private func expired() {
    guard let current = session else { return }
    let timeout = current.detail.timeout
    finish(
      .failure(
        .failed,
        current.detail.first == nil
          ? "no tag seen within \(timeout) s; nothing paired"
          : "the same tag was not presented again within \(timeout) s; nothing paired"))
  }

  private func finish(_ reply: ControlReply) {
    guard let current = session else { return }
    session = nil
    current.end(reply)
    dock.changes.mark([.devices, .polling, .status])
  }

  /// Forgets the puck `name` (the only one when nil). The last puck, while an enabled alarm
  /// needs one, goes only `confirmed`: after it nothing ends a wake-up but an override.
  func unpair(name given: String?, confirmed: Bool) throws(ControlFailure) -> ControlReply {
    guard !wakeUpIsOpen() else {
      throw ControlFailure(
        .refused, "a wake-up is open; unpairing is refused until it is ended with a paired puck")
    }
    // A file that cannot be read may hold pucks nobody has seen: say so, not "none paired".
    if let refusal = dock.state.pairing.refusal() { throw ControlFailure(.failed, "\(refusal)") }
    let pucks = dock.state.pairing.pucks
    let target: PairedTag
    if let given {
      guard let named = dock.state.pairing.pairing.puck(named: given) else {
        let known = pucks.map { "'\($0.name)'" }.joined(separator: ", ")
        throw ControlFailure(
          .notFound, "no puck is named '\(given)' (paired: \(known.isEmpty ? "none" : known))")
      }
      target = named
    } else {
      guard let only = pucks.first else { throw ControlFailure(.notFound, "no puck is paired") }
      guard pucks.count == 1 else {
        throw ControlFailure(
          .badRequest, "\(pucks.count) pucks are paired: say which with --name (puckctl pucks lists them)")
      }
      target = only
    }
    if pucks.count == 1 { try lock.permitLosing("unpairing the last puck") }
    if pucks.count == 1 && !confirmed
      && dock.state.alarms.alarms.contains(where: { $0.enabled && $0.requiresPuck })
    {
      throw ControlFailure(
        .refused,
        "\(target.display) is the last puck and an enabled alarm needs one: after it nothing ends a wake-up "
          + "but an override; confirm with --yes")
    }
    try ControlFailure.failing { try dock.state.pairing.remove(named: target.name) }
    Log.notice("unpaired \(target.display)")
    dock.changes.mark([.devices, .polling, .status])
    let left = dock.state.pairing.pucks.count
    return .success(
      left == 0
        ? "unpaired \(target.display); the dock is not protected until you pair a tag"
        : "unpaired \(target.display); \(left) puck\(left == 1 ? "" : "s") still paired")
  }

  /// A connection closed: a pairing waiting on it is abandoned.
  func clientClosed(_ client: ControlServer.Client) {
    guard let current = session, current.client === client else { return }
    Log.info("pairing abandoned (puckctl went away)")
    finish(.failure(.failed, "abandoned"))
  }
}
