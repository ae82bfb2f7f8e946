import PuckCore
import PuckSystem

/// A client's exchange with a flow that ends at a deadline unless something ends it first:
/// pairing (no tag in time), the rehearsal (each phase's length) and the override (its delay).
/// It holds the client, the deadline's monotonic timer on the loop, and what the flow keeps
/// about the exchange (`detail`).
struct ClientSession<Detail> {
  /// Who asked, and hears how it ends.
  let client: ControlServer.Client
  /// What the flow keeps about the exchange.
  var detail: Detail
  private let timer: TimerHandle

  /// Starts the exchange: `expired` runs on the loop `after` from now, unless `end()` comes first.
  init(
    client: ControlServer.Client, detail: Detail, dock: DockContext, after: Duration,
    expired: @escaping () -> Void
  ) throws(SystemError) {
    timer = try dock.loop.timer(.monotonic) { _ in expired() }
    try timer.arm(after: after)
    self.client = client
    self.detail = detail
  }

  /// Moves the deadline to `after` from now (the rehearsal's next phase).
  func extend(after: Duration) throws(SystemError) {
    try timer.arm(after: after)
  }

  /// Cancels the deadline's timer: the exchange is over; `reply`, if any, tells the client
  /// how (nothing is sent to a client that has gone away).
  func end(_ reply: ControlReply? = nil) {
    timer.cancel()
    if let reply { client.send(reply) }
  }
}
