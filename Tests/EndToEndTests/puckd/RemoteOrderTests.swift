import Foundation
import PuckCore
import PuckDevices
import Synchronization
import Testing

/// A node's messages leave in the order of their counters (docs/DESIGN.md M3): the dock takes a
/// message only if it is newer than the last one taken, so a heartbeat that overtook a scan got
/// the scan refused as a replay. A node and a dock in this process, through a real `mosquitto`;
/// the node's tag reader is one the test speaks for, and the node's clock holds up the scan's
/// message for a second while a heartbeat is sent from another thread.
@Suite("remote messages in order")
struct RemoteOrderTests {
  /// A tag reader whose events the test says.
  final class SpokenReader: TagReader {
    let say: @Sendable (TagReaderEvent) -> Void
    init(_ say: @escaping @Sendable (TagReaderEvent) -> Void) { self.say = say }
    func start() {}
    func start(after previous: (any TagReader)?) {}
    func requestStop() {}
    func setEnabled(_ enabled: Bool) {}
    func checkHealth() {}
    func checkProgress() -> DeviceCondition? { nil }
    var health: DeviceCondition { DeviceCondition(.ok, "spoken") }
    func stop() {}
  }

  @Test("a heartbeat sent while a scan is on its way does not overtake it: the dock takes the scan")
  func aHeartbeatDoesNotOvertakeAScan() throws {
    let broker = try Broker()
    let key = try #require(ReaderKey.generate())
    let settings = BrokerSettings(port: broker.port)
    let spoken = Mutex<SpokenReader?>(nil)
    let holdUpNext = Mutex(false)
    let node = try ReaderNode(
      .init(name: "kitchen", key: key, broker: settings, connstring: nil),
      makeReader: { _, say in
        let reader = SpokenReader(say)
        spoken.withLock { $0 = reader }
        return reader
      },
      wallMilliseconds: {
        let holdUp = holdUpNext.withLock { held in
          defer { held = false }
          return held
        }
        if holdUp { usleep(1_000_000) }
        return RemoteTagReader.systemWallMilliseconds()
      },
      log: { _, _ in })
    let heard = Mutex<[TagReaderEvent]>([])
    let dock = RemoteTagReader(.init(name: "kitchen", key: key, dock: "bedroom", broker: settings)) { event in
      heard.withLock { $0.append(event) }
    }
    dock.start()
    try node.start()
    defer {
      node.stop()
      dock.stop()
    }
    let reader = try #require(spoken.withLock { $0 })
    // Said until the dock has it: before the node is connected, what it says goes nowhere.
    try waitUntil(timeout: 10, "the dock hears the node") {
      reader.say(.health(DeviceCondition(.ok, "ready")))
      return dock.health.detail.contains("ready")
    }

    let puck = try TagUID(bytes: kitchenPuck)
    holdUpNext.withLock { $0 = true }
    let scanning = Thread { reader.say(.scanned(puck, fresh: true)) }
    scanning.start()
    usleep(200_000)  // the scan has its counter and waits on the clock
    reader.say(.health(DeviceCondition(.ok, "a heartbeat")))
    try waitUntil(timeout: 10, "the dock takes or refuses the scan") {
      heard.withLock { events in
        events.contains {
          switch $0 {
          case .scanned, .rejected: return true
          default: return false
          }
        }
      }
    }
    let events = heard.withLock { $0 }
    #expect(events.contains(.scanned(puck, fresh: true)), "\(events)")
    #expect(!events.contains { if case .rejected = $0 { return true } else { return false } }, "\(events)")
  }
}
