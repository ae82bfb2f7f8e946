/// The exchanges a client can hold open with the dock, each waiting on something (a tag, the
/// devices' answers, a countdown, the wake-up check's answer), and what ends them when the client
/// goes away. Built once by `Daemon`; the router hands commands to them and status reads them.
struct ControlFlows {
  /// `puckctl pair`: waits for a tag.
  let pairing: PairingFlow
  /// `puckctl test`: rings, then waits for the puck.
  let rehearsal: RehearsalFlow
  /// `sudo puckctl override`: counts down with the ring going on.
  let overrides: OverrideFlow
  /// `puckctl check`: waits for the devices' answers.
  let preflight: PreflightCheck
  /// `puckctl awake`: the wake-up check's answer.
  let awake: AwakeCheck

  /// A client hung up: every flow lets go of it (and of what it held for it) at once.
  func clientClosed(_ client: ControlServer.Client) {
    pairing.clientClosed(client)
    rehearsal.clientClosed(client)
    overrides.clientClosed(client)
    preflight.clientClosed(client)
  }
}
