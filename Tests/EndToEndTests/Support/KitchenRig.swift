import Foundation
import Glibc
import PN532Emulator
import PuckCore
import PuckDevices

/// The puck paired through the kitchen node.
let kitchenPuck: [UInt8] = [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44]

/// A bedside dock with no reader of its own and a kitchen reader node (`puck-reader`) with an
/// emulated PN532, talking through a real `mosquitto` on loopback (issue 11).
final class KitchenRig {
  let broker: Broker
  let dock: DaemonHarness
  let emulator: PN532Emulator
  let node: ReaderNodeProcess
  let key: ReaderKey

  /// A rig on `broker` (an open one by default); `accounts` gives the dock (`bedroom`) and the
  /// node (`kitchen`) their broker accounts; `config` is added to the dock's config. With
  /// `waitForOnline` false, nothing waits for the broker (it may be down on purpose).
  init(
    broker: Broker? = nil, accounts: [String: String]? = nil, config extra: String = "",
    waitForOnline: Bool = true
  ) throws {
    self.broker = try broker ?? Broker()
    let broker = self.broker
    let link = FileManager.default.temporaryDirectory.appendingPathComponent(
      "pn532-\(UUID().uuidString.prefix(8))"
    ).path
    emulator = try PN532Emulator(linkPath: link)
    var mqtt = "[mqtt]\nport = \(broker.port)\ndock_name = bedroom\n"
    var nodeAccount: [String] = []
    if let accounts {
      for (user, password) in accounts {
        let file = broker.directory.appendingPathComponent("\(user).password").path
        _ = FileManager.default.createFile(
          atPath: file, contents: Data((password + "\n").utf8), attributes: [.posixPermissions: 0o600])
        if user == "bedroom" { mqtt += "username = bedroom\npassword_file = \(file)\n" }
        if user == "kitchen" { nodeAccount = ["--username", "kitchen", "--password-file", file] }
      }
    }
    dock = try DaemonHarness(
      simulate: false, config: "[reader]\ndevice = none\n" + mqtt + extra, audio: false)
    try dock.start()
    let added = try dock.ctl("reader", "add", "kitchen")
    guard added.status == 0,
      let hex = added.stdout.firstMatch(of: #/[0-9a-f]{64}/#).map({ String($0.output) }),
      let key = ReaderKey(hex: hex)
    else { throw HarnessError("reader add: \(added.stdout) \(added.stderr)") }
    self.key = key
    let keyFile = broker.directory.appendingPathComponent("reader.key").path
    _ = FileManager.default.createFile(
      atPath: keyFile, contents: Data((hex + "\n").utf8), attributes: [.posixPermissions: 0o600])
    node = ReaderNodeProcess(
      name: "kitchen", keyFile: keyFile, broker: broker, connstring: "pn532_uart:\(link)", extra: nodeAccount)
    try node.start()
    if waitForOnline { try waitForReader("ok") }
  }

  deinit { emulator.shutdown() }

  /// The kitchen reader's line in status, as `state: detail`.
  var reader: (state: String, detail: String)? {
    let devices = (try? dock.status()["devices"] as? [[String: Any]]) ?? []
    return devices.first { $0["name"] as? String == "reader" }.map {
      ($0["state"] as? String ?? "", $0["detail"] as? String ?? "")
    }
  }

  func waitForReader(_ state: String, timeout: Double = 15) throws {
    try waitUntil(timeout: timeout, "the kitchen reader is \(state)") { self.reader?.state == state }
  }

  /// Presents a tag on the kitchen reader and waits until the dock has logged it.
  func present(_ uid: [UInt8]) throws {
    let before = dock.log.components(separatedBy: "reader kitchen: tag").count
    emulator.present(uid: uid)
    try waitUntil(timeout: 5, "the dock hears the tag") {
      self.dock.log.components(separatedBy: "reader kitchen: tag").count > before
    }
  }

  func remove() throws {
    let before = dock.log.components(separatedBy: "reader kitchen: tag removed").count
    emulator.remove()
    try waitUntil(timeout: 5, "the dock hears the tag go") {
      self.dock.log.components(separatedBy: "reader kitchen: tag removed").count > before
    }
  }

  /// Pairs the tag through the kitchen reader: presented, taken away, presented again.
  func pair() throws {
    let pairing = Process()
    pairing.executableURL = Binaries.url("puckctl")
    pairing.arguments = ["--socket", dock.socketPath, "pair", "--timeout", "20s"]
    pairing.standardOutput = FileHandle.nullDevice
    try pairing.spawn()
    try waitUntil(timeout: 5, "pairing waits") { self.dock.log.contains("pairing: waiting") }
    try present(kitchenPuck)
    try remove()
    try present(kitchenPuck)
    pairing.waitUntilExit()
    guard pairing.terminationStatus == 0 else {
      throw HarnessError("pair exited \(pairing.terminationStatus)")
    }
    // Paired, the dock no longer wants the field on: the node does not see the tag go.
    emulator.remove()
  }

  /// Adds an alarm a second from now and waits until it rings and the node has watched its
  /// empty field for the settled interval, so the next tag presented is a fresh scan.
  func ring() throws {
    let polled = node.log.components(separatedBy: "a dock wants the reader: polling").count
    try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 8, "the alarm rings") { try self.dock.isRinging() }
    try waitUntil(timeout: 5, "the node polls") {
      self.node.log.components(separatedBy: "a dock wants the reader: polling").count > polled
    }
    usleep(800_000)
  }

  /// A message signed with `key` (the kitchen's unless given), as a node would send it.
  func signed(
    _ kind: RemoteMessage.Kind, reader: String = "kitchen", key: ReaderKey? = nil,
    boot: String = "0123456789abcdef",
    seq: UInt64 = 1, ageMilliseconds: Int64 = 0, fill: (inout RemoteMessage) -> Void = { _ in }
  ) -> [UInt8] {
    var message = RemoteMessage(
      reader: reader, boot: boot, seq: seq,
      sentAt: RemoteTagReader.systemWallMilliseconds() - ageMilliseconds,
      kind: kind)
    message.uid = try? TagUID(parsing: "04:A2:3B:11:22:33:44")
    message.fresh = true
    fill(&message)
    return RemoteFrame.seal(message) { (key ?? self.key).sign($0) }
  }
}
