import PuckCore
import PuckStorage
import PuckSystem

/// `puckctl pair` and `unpair` (docs/DESIGN.md §5): waits for a tag, then the same tag again,
/// and stores it. Refused while a wake-up is open (P3); a wake-up that opens meanwhile cancels
/// it, and the scans belong to the wake-up then.
final class PairingFlow {
  /// A `puckctl pair` in progress.
  private struct Session {
    let client: ControlServer.Client
    let timer: any LoopTimer
    var first: TagUID?
  }

  private let dock: DockContext
  private let enforcement: Enforcement
  private var session: Session?
  /// Called when a pairing starts or ends, or the pairing changed (reader polling, status).
  var onChange: () -> Void = {}

  init(
    dock: DockContext, enforcement: Enforcement
  ) {
    self.dock = dock
    self.enforcement = enforcement
  }

  /// Whether a pairing waits for a tag (then the reader polls and scans come here).
  var isWaiting: Bool { session != nil }

  func start(timeout: Int, client: ControlServer.Client) {
    guard !enforcement.isOpen else {
      client.send(
        .failure(
          ControlFailure(
            .refused, "a wake-up is open; pairing is refused until it is ended with the paired tag")))
      return
    }
    guard session == nil else {
      client.send(.failure(ControlFailure(.refused, "another pairing is already waiting for a tag")))
      return
    }
    do {
      let timer = try dock.time.makeTimer(.monotonic)
      try timer.arm(after: .seconds(timeout))
      try dock.loop.watch(timer) { [unowned self] _ in
        self.finish(.failure(ControlFailure(.failed, "no tag seen within \(timeout) s; nothing paired")))
      }
      session = Session(client: client, timer: timer, first: nil)
      onChange()
      Log.info("pairing: waiting for a tag (\(timeout) s)")
      let source = dock.settings.simulated ? " (simulated: send it with puckctl scan UID)" : ""
      client.send(.progress("waiting for a tag on the reader\(source)… (\(timeout) s)"))
    } catch {
      client.send(.failure(ControlFailure(.failed, "\(error)")))
    }
  }

  /// A wake-up opened: a waiting pairing ends with a refusal.
  func wakeUpOpened() {
    guard session != nil, enforcement.isOpen else { return }
    cancel(because: "an alarm started ringing; pairing is refused until the wake-up is over")
  }

  private func cancel(because reason: String) {
    Log.notice("pairing cancelled: \(reason)")
    finish(.failure(ControlFailure(.refused, reason)))
  }

  /// A scan while the pairing waits.
  func scanned(_ uid: TagUID, fresh: Bool) {
    guard var current = session else { return }
    guard !enforcement.isOpen else {
      cancel(because: "a wake-up is open; pairing is refused until it is ended with the paired tag")
      return
    }
    do {
      try uid.validateForPairing()
    } catch {
      current.client.send(.progress("\(error) — present a tag"))
      return
    }
    guard let first = current.first else {
      current.first = uid
      session = current
      current.client.send(.progress("got \(uid.masked); lift it and present the same tag again to confirm"))
      return
    }
    guard first == uid else {
      finish(
        .failure(
          ControlFailure(
            .failed, "the second tag (\(uid.masked)) is not the first (\(first.masked)); nothing paired")))
      return
    }
    do {
      try dock.state.pairing.save(PairedTag(uid: uid, pairedAt: dock.time.instant))
    } catch {
      finish(.failure(ControlFailure(.failed, "could not save the pairing: \(error)")))
      return
    }
    Log.notice("paired tag \(uid.masked)")
    finish(.success("paired \(uid.masked). Put it where you must walk to (the kitchen, not the nightstand)."))
  }

  private func finish(_ reply: ControlReply) {
    guard let current = session else { return }
    session = nil
    dock.loop.unwatch(current.timer.fd)
    if !current.client.isClosed { current.client.send(reply) }
    onChange()
  }

  func unpair(client: ControlServer.Client) {
    guard !enforcement.isOpen else {
      client.send(
        .failure(
          ControlFailure(
            .refused, "a wake-up is open; unpairing is refused until it is ended with the paired tag")))
      return
    }
    do {
      try dock.state.pairing.remove()
    } catch {
      client.send(.failure(ControlFailure(.failed, "\(error)")))
      return
    }
    Log.notice("unpaired")
    onChange()
    client.send(.success("unpaired; the dock is not protected until you pair a tag"))
  }

  /// A connection closed: a pairing waiting on it is abandoned.
  func clientClosed(_ client: ControlServer.Client) {
    guard let current = session, current.client === client else { return }
    Log.info("pairing abandoned (puckctl went away)")
    finish(.failure(ControlFailure(.failed, "abandoned")))
  }
}
