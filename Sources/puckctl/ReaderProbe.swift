import Glibc
import PuckCore
import PuckDevices
import PuckSystem
import Synchronization

/// One reader opened through libnfc with an explicit connstring, as `puckctl setup` tries each
/// candidate: the first health the reader reports (the chip and its firmware, or the fault),
/// then, if asked, the first tag it sees. The reader is the daemon's own (`NFCTagReader`), so
/// what setup finds is what puckd will find.
final class ReaderProbe: Sendable {
  let connstring: String
  private let reader: NFCTagReader
  private let inbox = Inbox()

  /// The events the reader's thread delivers, taken on the caller's.
  private final class Inbox: Sendable {
    let events = Mutex<[TagReaderEvent]>([])
  }

  init(_ connstring: String) {
    self.connstring = connstring
    let inbox = self.inbox
    reader = NFCTagReader(
      configuration: NFCTagReader.Configuration(connstring: connstring, pollInterval: .milliseconds(50)),
      onEvent: { event in inbox.events.withLock { $0.append(event) } })
    reader.start()
  }

  deinit {
    reader.stop()
  }

  /// The reader's first health report: ok with the chip, or the fault; nil when it said
  /// nothing within `limit` (a driver stuck on a silent port).
  func health(within limit: Duration) -> DeviceCondition? {
    first(within: limit) { event in
      if case .health(let condition) = event { return condition }
      return nil
    }
  }

  /// The first tag presented within `limit` (one lying there already counts: this is not a
  /// wake-up), or nil.
  func tag(within limit: Duration) -> TagUID? {
    reader.setEnabled(true)
    defer { reader.setEnabled(false) }
    return first(within: limit) { event in
      if case .scanned(let uid, _) = event { return uid }
      return nil
    }
  }

  /// Takes events in order until `match` finds one, up to `limit`.
  private func first<Value>(within limit: Duration, _ match: (TagReaderEvent) -> Value?) -> Value? {
    let deadline = MonotonicInstant.now() + limit
    while true {
      let taken = inbox.events.withLock { pending in
        defer { pending.removeAll() }
        return pending
      }
      for event in taken {
        if let value = match(event) { return value }
      }
      guard MonotonicInstant.now() < deadline else { return nil }
      usleep(20_000)
    }
  }
}
