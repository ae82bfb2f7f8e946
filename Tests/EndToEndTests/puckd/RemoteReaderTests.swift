import Foundation
import Glibc
import PN532Emulator
import PuckCore
import PuckDevices
import Testing

@Suite("remote readers through a real MQTT broker", .serialized)
struct RemoteReaderTests {
  @Test("a reader node with the emulated PN532 pairs a tag and ends a wake-up on the dock")
  func pairAndWakeThroughTheKitchen() throws {
    let rig = try KitchenRig()
    try rig.pair()
    #expect(try rig.dock.status()["pairedTag"] != nil)
    try rig.ring()
    try rig.present(kitchenPuck)
    try waitUntil(timeout: 5, "the wake-up closes") { try rig.dock.guards().isEmpty }
    #expect(rig.dock.log.contains("closed by the paired tag"))
    #expect(rig.node.log.contains("a dock wants the reader: polling"))
  }

  @Test("unsigned, wrongly signed, replayed, stale and other-reader messages do not end the wake-up")
  func forgedMessagesAreRefused() throws {
    let rig = try KitchenRig()
    try rig.pair()
    try rig.ring()
    let topic = RemoteTopic.events("kitchen")
    let genuine = rig.signed(.arrived, boot: "feedfacefeedface", seq: 1)
    let attacks: [(String, [UInt8])] = [
      (
        "no signature in front",
        Array(#"{"kind":"arrived","reader":"kitchen","uid":"04:A2:3B:11:22:33:44"}"#.utf8)
      ),
      ("bad signature", rig.signed(.arrived, key: ReaderKey.generate())),
      ("s old", rig.signed(.arrived, boot: "0000000000000001", ageMilliseconds: 60_000)),
      // Signed with the kitchen's key but naming another reader: the topic decides whose key
      // checks a message, and the message must name that reader.
      ("came on", rig.signed(.arrived, reader: "hall", boot: "0000000000000002")),
    ]
    // A message signed with the kitchen's key is taken once and ends the wake-up (the test holds
    // the key, as the node does); sent again, to the next wake-up, it is a replay.
    try rig.broker.publish(topic, genuine)
    try waitUntil(timeout: 5, "the genuine message is taken") { rig.dock.log.contains("reader kitchen: tag") }
    try waitUntil(timeout: 5, "the wake-up closes") { try rig.dock.guards().isEmpty }
    try rig.ring()
    try rig.broker.publish(topic, genuine)
    // Refused either way: as a replay, or, when nothing was taken from the node since, as a
    // copy of the last message taken (which is what a redelivery after a reconnect is).
    try waitUntil(timeout: 5, "the replay is refused") {
      rig.dock.log.contains("was already taken (replayed)") || rig.dock.log.contains("came again")
    }
    for (expected, payload) in attacks {
      try rig.broker.publish(topic, payload)
      try waitUntil(timeout: 5, "refused: \(expected)") {
        rig.dock.log.split(separator: "\n").contains {
          $0.contains("refused a message") && $0.contains(expected)
        }
      }
    }
    #expect(try rig.dock.isRinging(), "none of them ended the wake-up")
    #expect(rig.dock.log.contains("not a PuckAlarm reader message") || rig.dock.log.contains("bad signature"))
  }

  @Test(
    "the node killed: warned before the alarm, it rings on and status says which reader; the node back, the scan works"
  )
  func nodeKilledAndBack() throws {
    let rig = try KitchenRig()
    try rig.pair()
    // Killed before the alarm: the pre-flight check ahead of it warns, and it rings anyway.
    rig.node.stop(signal: SIGKILL)
    try rig.waitForReader("fault")
    #expect(rig.reader?.detail.contains("kitchen: the reader node is offline") == true)
    #expect(rig.reader?.detail.contains("(for ") == true, "status says for how long")
    try rig.dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 8, "the alarm rings") { try rig.dock.isRinging() }
    #expect(
      rig.dock.log.split(separator: "\n").contains {
        $0.hasPrefix("<4>pre-flight check (before-alarm) FAILED before the alarm")
          && $0.contains("remote kitchen: FAILED — kitchen: the reader node is offline")
      }, "the check ahead of the alarm names the reader")
    let verdict = try rig.dock.status()["protected"] as? Bool
    #expect(verdict == false)
    let polled = rig.node.log.components(separatedBy: "a dock wants the reader: polling").count
    try rig.node.start()
    try rig.waitForReader("ok")
    // The dock's retained want reaches the new node at once; it polls, and after the settled
    // interval the tag counts as presented.
    try waitUntil(timeout: 5, "the node polls again") {
      rig.node.log.components(separatedBy: "a dock wants the reader: polling").count > polled
    }
    usleep(800_000)
    try rig.present(kitchenPuck)
    try waitUntil(timeout: 5, "the wake-up closes") { try rig.dock.guards().isEmpty }
  }

  @Test(
    "with the README's accounts and ACLs: no anonymous client, and an account without rights cannot reach the dock"
  )
  func brokerACLs() throws {
    let accounts = ["bedroom": "dock-secret", "kitchen": "node-secret", "guest": "guest-secret"]
    let broker = try Broker.secured(accounts: accounts, acl: try Self.readmeACL())
    let rig = try KitchenRig(broker: broker, accounts: accounts)
    try rig.pair()
    try rig.ring()
    let topic = RemoteTopic.events("kitchen")
    // Signed with the kitchen's key: it would end the wake-up if the broker let it through.
    let anonymous = try broker.publish(topic, rig.signed(.arrived, boot: "1111111111111111"))
    #expect(anonymous.status != 0, "an anonymous client is refused: \(anonymous.stderr)")
    let heard = rig.dock.log.components(separatedBy: "reader kitchen: tag").count
    try broker.publish(
      topic, rig.signed(.arrived, boot: "2222222222222222"), as: (user: "guest", password: "guest-secret"))
    usleep(1_500_000)
    #expect(
      rig.dock.log.components(separatedBy: "reader kitchen: tag").count == heard, "the broker dropped it")
    #expect(try rig.dock.isRinging())
    // The node, with its own account, still ends it.
    try rig.present(kitchenPuck)
    try waitUntil(timeout: 5, "the wake-up closes") { try rig.dock.guards().isEmpty }
  }

  /// The ACL file of the README's Mosquitto section, read from the README itself.
  static func readmeACL() throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    guard let start = readme.range(of: "# /etc/mosquitto/puckalarm.acl\n"),
      let end = readme.range(of: "```", range: start.upperBound..<readme.endIndex)
    else { throw HarnessError("the README has no '# /etc/mosquitto/puckalarm.acl' block") }
    return String(readme[start.upperBound..<end.lowerBound])
  }

  @Test("two docks share one reader node: the second takes the first's key, and one scan ends both wake-ups")
  func twoDocksOneNode() throws {
    let rig = try KitchenRig()
    let guest = try DaemonHarness(
      simulate: false,
      config: "[reader]\ndevice = none\n[mqtt]\nport = \(rig.broker.port)\ndock_name = guest\n",
      audio: false)
    try guest.start()
    let shared = try guest.ctl(["reader", "add", "kitchen", "--key-stdin"], stdin: rig.key.hex + "\n")
    #expect(shared.status == 0, "\(shared.stderr)")
    #expect(shared.stdout.contains(rig.key.hex), "the same key")
    try waitUntil(timeout: 15, "the guest dock hears the node") {
      let devices = (try? guest.status()["devices"] as? [[String: Any]]) ?? []
      return devices.contains { $0["name"] as? String == "reader" && $0["state"] as? String == "ok" }
    }
    // Both docks pair the same tag through the one node.
    try rig.pair()
    try guest.pair(through: rig)
    // The bedroom's alarm first: once either dock's alarm is near, the node polls (S12), and
    // ring() waits for that to start.
    try rig.ring()
    try guest.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 8, "the guest dock rings too") { try guest.isRinging() }
    try rig.present(kitchenPuck)
    // A hang is what this wait detects; on a loaded machine the node and two docks may need
    // more than a few seconds. When it fails, the three logs say which side stopped.
    do {
      try waitUntil(timeout: 15, "both wake-ups close") {
        try rig.dock.guards().isEmpty && guest.guards().isEmpty
      }
    } catch {
      Issue.record(
        "\(error)\n--- bedroom:\n\(rig.dock.log)\n--- guest:\n\(guest.log)\n--- node:\n\(rig.node.log)")
    }
    let bad = try guest.ctl(["reader", "add", "hall", "--key-stdin"], stdin: "not a key\n")
    #expect(bad.status != 0)
    #expect(bad.stderr.contains("64 hex digits"))
  }

  @Test("the broker restarted mid-wake-up: dock and node reconnect by themselves, the scan works")
  func brokerRestarted() throws {
    let rig = try KitchenRig()
    try rig.pair()
    try rig.ring()
    rig.broker.stop()
    try rig.waitForReader("fault")
    #expect(rig.reader?.detail.contains("cannot reach the MQTT broker") == true)
    #expect(try rig.dock.isRinging())
    try rig.broker.start()
    try rig.waitForReader("ok", timeout: 40)
    try rig.present(kitchenPuck)
    try waitUntil(timeout: 5, "the wake-up closes") { try rig.dock.guards().isEmpty }
  }
}

extension DaemonHarness {
  /// Pairs the tag through `rig`'s kitchen node, as `KitchenRig.pair` does for its own dock.
  fileprivate func pair(through rig: KitchenRig) throws {
    let pairing = Process()
    pairing.executableURL = Binaries.url("puckctl")
    pairing.arguments = ["--socket", socketPath, "pair", "--timeout", "20s"]
    pairing.standardOutput = FileHandle.nullDevice
    try pairing.spawn()
    try waitUntil(timeout: 5, "pairing waits") { self.log.contains("pairing: waiting") }
    usleep(800_000)  // the node starts polling for this dock: a tag after the settled interval is fresh
    for step in 0..<3 {
      if step == 1 { rig.emulator.remove() } else { rig.emulator.present(uid: kitchenPuck) }
      usleep(700_000)
    }
    pairing.waitUntilExit()
    guard pairing.terminationStatus == 0 else {
      throw HarnessError("pair exited \(pairing.terminationStatus)")
    }
    rig.emulator.remove()
  }
}
