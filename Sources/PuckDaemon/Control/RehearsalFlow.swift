import PuckCore
import PuckSystem

/// `puckctl test`: a short ring that is not a wake-up, then one line per device. A wake-up
/// that starts, the dock button, `puckctl stop` or the client going away interrupts it.
final class RehearsalFlow {
  private struct Session {
    let client: ControlServer.Client
    let timer: any LoopTimer
  }

  private let time: any TimeSource
  private let loop: EventLoop<LoopMessage>
  private let ringer: Ringer
  private let readers: Readers
  private let status: StatusReporter
  private var session: Session?

  init(
    time: any TimeSource, loop: EventLoop<LoopMessage>, ringer: Ringer, readers: Readers,
    status: StatusReporter
  ) {
    self.time = time
    self.loop = loop
    self.ringer = ringer
    self.readers = readers
    self.status = status
  }

  var isRunning: Bool { session != nil }

  func start(seconds: Int, client: ControlServer.Client) {
    guard ringer.ringing == nil, session == nil else {
      client.send(.failure(ControlFailure(.refused, "the dock is ringing; a rehearsal would get in the way")))
      return
    }
    do {
      let timer = try time.makeTimer(.monotonic)
      try timer.arm(after: .seconds(seconds))
      try loop.watch(timer) { [unowned self] _ in self.end(interrupted: false) }
      session = Session(client: client, timer: timer)
      Log.info("rehearsal: ringing for \(seconds) s")
      ringer.startRehearsal()
    } catch {
      client.send(.failure(ControlFailure(.failed, "\(error)")))
    }
  }

  func end(interrupted: Bool) {
    guard let current = session else { return }
    session = nil
    loop.unwatch(current.timer.fd)
    ringer.stopRehearsal()
    guard !current.client.isClosed else { return }
    if interrupted {
      current.client.send(.failure(ControlFailure(.failed, "rehearsal interrupted")))
      return
    }
    readers.refreshProgress()
    let devices = status.deviceHealth()
    let lines = devices.map {
      "\($0.name): \($0.state.rawValue)\($0.detail.isEmpty ? "" : " — \($0.detail)")"
    }
    let faulty = devices.contains { $0.state == .fault }
    let reply: ControlReply =
      faulty
      ? .failure(ControlFailure(.failed, (["rehearsal found a fault:"] + lines).joined(separator: "\n")))
      : .success((["rehearsal done:"] + lines).joined(separator: "\n"))
    current.client.send(reply)
  }

  /// A connection closed: a rehearsal waiting on it is interrupted.
  func clientClosed(_ client: ControlServer.Client) {
    if let current = session, current.client === client { end(interrupted: true) }
  }
}
