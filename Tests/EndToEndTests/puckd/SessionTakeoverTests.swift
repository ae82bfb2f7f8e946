import Foundation
import Glibc
import PuckCore
import Testing

/// Issue 33 item 4: a client of the broker that connects with another client's ID makes
/// Mosquitto drop that client (session takeover) and publish its last will. Real `mosquitto`,
/// real `puckd` and `puck-reader` processes, the emulated PN532 at the node.
@Suite("client IDs nobody can guess (issue 33 item 4)", .serialized)
struct SessionTakeoverTests {
  @Test(
    "a broker client that learns everything published and connects with every client ID it can derive cuts nobody off: the kitchen puck ends the wake-up within 5 s, the node is never offline"
  )
  func derivedClientIDsTakeNoSession() throws {
    let broker = try Broker()
    // The thief hears everything from the start: the pairing's scans carry the node's boot,
    // the dock's retained want its own.
    let learner = try broker.subscribe("#")
    let rig = try KitchenRig(broker: broker, config: "[homeassistant]\nenabled = yes\n")
    try rig.pair()
    try rig.ring()
    let dockLines = rig.dock.log.split(separator: "\n").count
    let heard = learner.messages.count
    let thief = SessionThief(broker: broker, learner: learner)
    thief.start()
    defer { thief.stop() }
    // Long enough for every ID the thief derives to have been taken a few times over; each
    // took its owner's session before the IDs were random.
    try waitUntil(timeout: 20, "the thief has connected with each ID it derives three times") {
      thief.rounds >= 3
    }
    usleep(1_000_000)
    rig.emulator.present(uid: kitchenPuck)
    // Recorded, not thrown: the checks below say what the thief did meanwhile.
    do {
      try waitUntil(timeout: 5, "the genuine scan at the node ends the wake-up") {
        try rig.dock.guards().isEmpty
      }
    } catch {
      Issue.record(error)
    }
    thief.stop()

    // The thief knew the formulas and the values: it did try the old IDs.
    let tried = thief.triedIDs
    for prefix in ["puck-reader-kitchen-", "puckd-bedroom-kitchen-", "puckd-bedroom-homeassistant"] {
      #expect(tried.contains { $0.hasPrefix(prefix) }, "the thief tried no \(prefix)… (\(tried.sorted()))")
    }
    let since = learner.messages.dropFirst(heard)
    #expect(
      !since.contains { $0.topic == RemoteTopic.presence("kitchen") && $0.payload.contains("offline") },
      "the broker published the node's last will")
    #expect(
      !since.contains { $0.topic == "puckalarm/dock/bedroom/availability" && $0.payload == "offline" },
      "the broker published the Home Assistant bridge's last will")
    let faults = rig.dock.log.split(separator: "\n").dropFirst(dockLines).filter {
      $0.hasPrefix("<3>reader kitchen")
    }
    #expect(faults.isEmpty, "the dock reported the kitchen reader faulty: \(faults)")
  }

  @Test(
    "with the README's broker configuration, another account cannot take a session over even with the exact client ID"
  )
  func readmeBrokerKeepsOtherAccountsOffTheSessions() throws {
    let puckAlarm = ["bedroom": "dock-secret", "kitchen": "node-secret"]
    let guest = (user: "guest", password: "guest-secret")
    let broker = try Broker.readme(puckAlarm: puckAlarm, others: [guest.user: guest.password])
    let rig = try KitchenRig(broker: broker, accounts: puckAlarm)
    try rig.pair()
    try rig.ring()
    // The dock's and the node's IDs, from the broker's own log: more than any client can learn,
    // handed to the thief, which tries them on both listeners with its own account.
    let genuine = broker.clientIDs(of: "bedroom").union(broker.clientIDs(of: "kitchen")).sorted()
    #expect(genuine.contains { $0.hasPrefix("puck-reader-kitchen-") }, "\(genuine)")
    #expect(genuine.contains { $0.hasPrefix("puckd-bedroom-kitchen-") }, "\(genuine)")
    let brokerLines = broker.log.split(separator: "\n").count
    let dockLines = rig.dock.log.split(separator: "\n").count
    let thieves = [broker.otherPort, broker.port].map { port in
      SessionThief(broker: broker, port: port, as: guest) { genuine }
    }
    for thief in thieves { thief.start() }
    defer { for thief in thieves { thief.stop() } }
    try waitUntil(timeout: 20, "each thief has connected with each ID three times") {
      thieves.allSatisfy { $0.rounds >= 3 }
    }
    rig.emulator.present(uid: kitchenPuck)
    do {
      try waitUntil(timeout: 5, "the genuine scan at the node ends the wake-up") {
        try rig.dock.guards().isEmpty
      }
    } catch {
      Issue.record(error)
    }
    for thief in thieves { thief.stop() }

    let since = broker.log.split(separator: "\n").dropFirst(brokerLines)
    #expect(since.contains { $0.contains("u'guest'") }, "the thief got in on the other listener")
    let takeovers = since.filter { line in
      genuine.contains { line.contains("Client \($0) already connected, closing old connection") }
    }
    #expect(takeovers.isEmpty, "sessions taken over: \(takeovers)")
    let faults = rig.dock.log.split(separator: "\n").dropFirst(dockLines).filter {
      $0.hasPrefix("<3>reader kitchen")
    }
    #expect(faults.isEmpty, "the dock reported the kitchen reader faulty: \(faults)")
  }
}
