import Foundation
import Glibc

/// A client of the broker that tries to take over every PuckAlarm session it can name (issue 33
/// item 4). It hears everything published (a `mosquitto_sub` on `#`, given as `learner`), learns
/// each reader, dock and boot in it, and connects again and again with every client ID it can
/// derive from them by the formulas PuckAlarm used before its IDs were random
/// (`puck-reader-NAME-BOOT`, `puckd-DOCK-NAME-BOOT`, the boot whole and its first six digits;
/// `puckd-DOCK-homeassistant`), and with each ID `known` adds. Each connection is a
/// `mosquitto_pub -i ID`: Mosquitto drops a client already connected with that ID (session
/// takeover), and publishes its last will.
///
/// `@unchecked Sendable`: its state is guarded by `lock`; the thread it starts only reads the
/// immutable settings and the learner's file.
final class SessionThief: @unchecked Sendable {
  private let port: Int
  private let account: (user: String, password: String)?
  private let learner: Subscriber?
  private let known: @Sendable () -> [String]
  private let lock = NSLock()
  private var running = false
  private var finished = false
  private var tried: Set<String> = []
  private var completedRounds = 0

  /// A thief on `broker`'s `port` (its first listener unless given), logged in as `account` when
  /// given, learning from `learner` when given.
  init(
    broker: Broker, port: Int? = nil, as account: (user: String, password: String)? = nil,
    learner: Subscriber? = nil, known: @escaping @Sendable () -> [String] = { [] }
  ) {
    self.port = port ?? broker.port
    self.account = account
    self.learner = learner
    self.known = known
  }

  deinit { stop() }

  /// Starts taking sessions on a thread of its own, until `stop()`.
  func start() {
    lock.withLock { running = true }
    Thread { [self] in
      while lock.withLock({ running }) {
        for id in Self.derivedIDs(from: learner?.messages ?? []) + known() {
          guard lock.withLock({ running }) else { break }
          var arguments = ["-p", "\(port)", "-i", id, "-t", "puckalarm/thief", "-m", "x"]
          if let account { arguments += ["-u", account.user, "-P", account.password] }
          _ = try? runExternal("/usr/bin/mosquitto_pub", arguments)
          lock.withLock { _ = tried.insert(id) }
        }
        lock.withLock { completedRounds += 1 }
        usleep(100_000)
      }
      lock.withLock { finished = true }
    }.start()
  }

  /// Stops taking sessions and waits until the last connection is over.
  func stop() {
    guard
      lock.withLock({
        defer { running = false }; return running
      })
    else { return }
    while !lock.withLock({ finished }) { usleep(20_000) }
  }

  /// Every client ID it connected with so far.
  var triedIDs: Set<String> { lock.withLock { tried } }

  /// How many times it went through every ID it knew.
  var rounds: Int { lock.withLock { completedRounds } }

  /// The client IDs the old formulas give for every reader, dock and boot in `messages`.
  static func derivedIDs(from messages: [(topic: String, payload: String)]) -> [String] {
    var readers = Set<String>()
    var docks = Set<String>()
    var boots = Set<String>()
    for (topic, payload) in messages {
      let parts = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
      if parts.count > 2, parts[0] == "puckalarm", parts[1] == "reader" {
        readers.insert(parts[2])
        if parts.count > 4, parts[3] == "want" { docks.insert(parts[4]) }
      } else if parts.count > 2, parts[0] == "puckalarm", parts[1] == "dock" {
        docks.insert(parts[2])
      }
      // A signed frame is `MAC JSON`; Home Assistant's documents are JSON alone.
      guard let brace = payload.firstIndex(of: "{"),
        let json = try? JSONSerialization.jsonObject(with: Data(payload[brace...].utf8))
      else { continue }
      visitStrings(json) { key, value in
        switch key {
        case "reader": readers.insert(value)
        case "dock": docks.insert(value)
        default: break
        }
        if value.utf8.count == 16, value.allSatisfy(\.isHexDigit) { boots.insert(value) }
      }
    }
    var ids = Set(docks.map { "puckd-\($0)-homeassistant" })
    for boot in boots {
      for part in [String(boot.prefix(6)), boot] {
        for reader in readers {
          ids.insert("puck-reader-\(reader)-\(part)")
          for dock in docks { ids.insert("puckd-\(dock)-\(reader)-\(part)") }
        }
      }
    }
    return ids.sorted()
  }

  /// Calls `visit` with each string value in a decoded JSON document and the key it is under.
  private static func visitStrings(_ json: Any, key: String = "", _ visit: (String, String) -> Void) {
    if let string = json as? String {
      visit(key, string)
    } else if let object = json as? [String: Any] {
      for (key, value) in object { visitStrings(value, key: key, visit) }
    } else if let array = json as? [Any] {
      for value in array { visitStrings(value, key: key, visit) }
    }
  }
}
