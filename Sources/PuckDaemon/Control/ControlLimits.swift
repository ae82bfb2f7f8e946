/// The control socket's limits (docs/DESIGN.md §7, issue 8): what one peer, and all
/// unprivileged peers together, may hold of the daemon.
enum ControlLimits {
  /// How long a client may take to send its request line.
  static let requestTimeout: Duration = .seconds(5)
  /// How long a reply may wait with no byte of it read before the client is dropped: a peer
  /// that asks and never reads must not keep its slot and its buffered reply.
  static let writeTimeout: Duration = .seconds(5)
  /// At most this many unprivileged connections at once. Without a cap, a local user opening
  /// connections in a loop could use up the daemon's file descriptors, which the ring, the state
  /// files and the timers need too.
  static let maxClients = 64
  /// Further connections only root and the `puckalarm` group may use, so that `override` and
  /// `stop` get in while unprivileged peers hold every slot of theirs.
  static let reservedPrivilegedSlots = 16
  /// Most reply bytes waiting for one client; a larger reply is answered with a short error.
  /// Room for the largest legitimate reply: 1000 history entries whose 256-byte labels are
  /// escaped on the wire come to about 2 MiB.
  static let maxBufferedBytesPerClient = 4 << 20
  /// Most reply bytes waiting across all clients, so slow readers cannot make the daemon hold
  /// `maxClients` times the per-client cap.
  static let maxBufferedBytes = 16 << 20
  /// Connections taken per wake-up of the listener, so a connect flood cannot starve the loop.
  static let acceptsPerWakeUp = 32
}
