import Synchronization

/// One sender's message counter (docs/DESIGN.md M3), held from taking a number until the message
/// is queued: messages leave in the order of their counters. Numbered apart, a heartbeat from
/// one thread could overtake a scan from another, and the receiver would refuse the scan, older
/// than the last message it took, as a replay (seen on CI with a node's first two messages).
final class MessageCounter: Sendable {
  private let last = Mutex<UInt64>(0)

  /// Runs `send` with the next counter, under the counter's lock: `send` signs and queues the
  /// message before anyone else gets a number.
  func next(_ send: (UInt64) -> Void) {
    last.withLock { last in
      last += 1
      send(last)
    }
  }
}
