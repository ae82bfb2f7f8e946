import Foundation
import Glibc

/// A real `mosquitto` on a loopback port of its own, started and killed by the test.
final class Broker {
  let port: Int
  /// A second free port, for a configuration with two listeners (the README's).
  let otherPort: Int
  let directory: URL
  private var process: Process?

  /// A broker on a free port; `config` is added to its configuration (ACLs, password file).
  convenience init(config: String = "allow_anonymous true\n") throws {
    try self.init { port, _, _ in "listener \(port) 127.0.0.1\n\(config)" }
  }

  /// A broker whose whole configuration `configuration` writes, given the two ports and the
  /// broker's directory (where it may put password and ACL files).
  init(configuration: (_ port: Int, _ otherPort: Int, _ directory: URL) throws -> String) throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "broker-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    port = Broker.freePort()
    var other = Broker.freePort()
    while other == port { other = Broker.freePort() }
    otherPort = other
    try configuration(port, otherPort, directory).write(
      to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
    try start()
  }

  deinit {
    stop()
    try? FileManager.default.removeItem(at: directory)
  }

  /// Starts the broker (again) and waits until its port accepts connections.
  func start() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
    process.arguments = ["-c", directory.appendingPathComponent("mosquitto.conf").path]
    try process.run(appendingOutputTo: logPath)
    self.process = process
    try waitUntil(timeout: 5, "mosquitto listens on \(port)") { Broker.accepts(port) }
  }

  /// Where the broker logs (its stderr): with Mosquitto's default log types, each client's
  /// connection, with its client ID and account.
  var logPath: String { directory.appendingPathComponent("mosquitto.log").path }

  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  /// The client IDs the broker took from clients logged in as `user`, from its log.
  func clientIDs(of user: String) -> Set<String> {
    Set(
      log.split(separator: "\n").compactMap { line -> String? in
        guard line.contains("New client connected from"), line.hasSuffix("u'\(user)').") else { return nil }
        return line.firstMatch(of: #/ as (\S+) \(/#).map { String($0.output.1) }
      })
  }

  /// Kills the broker at once.
  func stop() {
    guard let process, process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    self.process = nil
  }

  /// Publishes `payload` on `topic` as an ordinary client would (`mosquitto_pub`), with an
  /// account when given; returns what it printed and its exit status.
  @discardableResult
  func publish(
    _ topic: String, _ payload: [UInt8], as account: (user: String, password: String)? = nil,
    retain: Bool = false
  )
    throws
    -> ProcessResult
  {
    let file = directory.appendingPathComponent("payload-\(UUID().uuidString.prefix(6))")
    try Data(payload).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    var arguments = ["-p", "\(port)", "-q", "1", "-t", topic, "-f", file.path]
    if retain { arguments.append("-r") }
    if let account { arguments += ["-u", account.user, "-P", account.password] }
    return try runExternal("/usr/bin/mosquitto_pub", arguments)
  }

  /// Publishes each of `lines` as one message on `topic`, in order, from one client
  /// (`mosquitto_pub -l`): a flood.
  @discardableResult
  func publish(_ topic: String, lines: [String]) throws -> ProcessResult {
    let file = directory.appendingPathComponent("lines-\(UUID().uuidString.prefix(6))")
    try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    return try runExternal(
      "/bin/sh", ["-c", "/usr/bin/mosquitto_pub -p \(port) -q 1 -t '\(topic)' -l < '\(file.path)'"])
  }

  /// Starts `mosquitto_sub` on `topic` in the background and waits until the broker has taken
  /// its subscription; `messages` reads what it heard so far (one `topic payload` per line).
  func subscribe(
    _ topic: String, as account: (user: String, password: String)? = nil, port: Int? = nil
  ) throws -> Subscriber {
    try Subscriber(port: port ?? self.port, topic: topic, account: account, directory: directory)
  }

  /// A broker with accounts (`mosquitto_passwd`) and per-client ACLs, as the README shows.
  static func secured(accounts: [String: String], acl: String) throws -> Broker {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "acl-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let passwords = directory.appendingPathComponent("passwd").path
    _ = FileManager.default.createFile(atPath: passwords, contents: nil)
    for (user, password) in accounts {
      let made = try runExternal("/usr/bin/mosquitto_passwd", ["-b", passwords, user, password])
      guard made.status == 0 else { throw HarnessError("mosquitto_passwd: \(made.stderr)") }
    }
    let aclFile = directory.appendingPathComponent("acl").path
    try acl.write(toFile: aclFile, atomically: true, encoding: .utf8)
    return try Broker(config: "allow_anonymous false\npassword_file \(passwords)\nacl_file \(aclFile)\n")
  }

  /// A broker set up as the README's Mosquitto section says, with its configuration and ACL
  /// files read from the README itself: `puckAlarm`'s accounts (the dock's and the node's) on
  /// the first listener, `others`' on the second.
  static func readme(puckAlarm: [String: String], others: [String: String]) throws -> Broker {
    try Broker { port, otherPort, directory in
      for (file, accounts) in [("puckalarm.passwd", puckAlarm), ("others.passwd", others)] {
        let path = directory.appendingPathComponent(file).path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        for (user, password) in accounts {
          let made = try runExternal("/usr/bin/mosquitto_passwd", ["-b", path, user, password])
          guard made.status == 0 else { throw HarnessError("mosquitto_passwd: \(made.stderr)") }
        }
      }
      for file in ["puckalarm.acl", "others.acl"] {
        try readmeBlock("# /etc/mosquitto/\(file)").write(
          to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
      }
      return try readmeBlock("# /etc/mosquitto/conf.d/puckalarm.conf")
        .replacingOccurrences(of: "listener 1883\n", with: "listener \(port) 127.0.0.1\n")
        .replacingOccurrences(of: "listener 1884\n", with: "listener \(otherPort) 127.0.0.1\n")
        .replacingOccurrences(of: "/etc/mosquitto/", with: directory.path + "/")
    }
  }

  /// The text of the README's code block that begins with the line `header`.
  static func readmeBlock(_ header: String) throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    guard let start = readme.range(of: header + "\n"),
      let end = readme.range(of: "```", range: start.upperBound..<readme.endIndex)
    else { throw HarnessError("the README has no '\(header)' block") }
    return String(readme[start.upperBound..<end.lowerBound])
  }

  private static func accepts(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// A port the kernel just handed out and took back: free unless another process races for it.
  static func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        _ = bind(fd, pointer, length)
        return getsockname(fd, pointer, &length)
      }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

/// `puck-reader` as a child process, its output in a log file.
final class ReaderNodeProcess {
  let logPath: String
  private let arguments: [String]
  private var process: Process?

  init(name: String, keyFile: String, broker: Broker, connstring: String, extra: [String] = []) {
    logPath = broker.directory.appendingPathComponent("node-\(name).log").path
    arguments =
      ["--name", name, "--key-file", keyFile, "--broker", "127.0.0.1:\(broker.port)", "--reader", connstring]
      + extra
  }

  deinit { stop(signal: SIGKILL) }

  func start() throws {
    let process = Process()
    process.executableURL = Binaries.url("puck-reader")
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["LIBNFC_AUTO_SCAN"] = "false"
    process.environment = environment
    try process.run(appendingOutputTo: logPath)
    self.process = process
  }

  func stop(signal: Int32 = SIGTERM) {
    guard let process, process.isRunning else { return }
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    self.process = nil
  }

  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  /// The running node's process ID.
  var pid: Int32? { process?.isRunning == true ? process?.processIdentifier : nil }

  /// Waits up to `timeout` seconds for the node to exit by itself; its exit status, or nil if
  /// it is still running.
  func exitStatus(waiting timeout: Double) -> Int32? {
    guard let process else { return nil }
    try? waitUntil(timeout: timeout, "puck-reader exits") { !process.isRunning }
    return process.isRunning ? nil : process.terminationStatus
  }
}

/// A `mosquitto_sub` in the background, its output in a file.
final class Subscriber {
  private let process = Process()
  private let path: String

  fileprivate init(
    port: Int, topic: String, account: (user: String, password: String)?, directory: URL
  ) throws {
    path = directory.appendingPathComponent("sub-\(UUID().uuidString.prefix(6)).log").path
    // stdbuf: a line at a time, so the subscription is seen as soon as it is made.
    process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
    process.arguments =
      ["-oL", "/usr/bin/mosquitto_sub", "-p", "\(port)", "-t", topic, "-v", "-d"]
      + (account.map { ["-u", $0.user, "-P", $0.password] } ?? [])
    try process.run(appendingOutputTo: path)
    try waitUntil(timeout: 5, "mosquitto_sub subscribed to \(topic)") { self.output.contains("SUBACK") }
  }

  deinit {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  private var output: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

  /// The payloads heard so far (without `-d`'s debug lines).
  var payloads: [String] { messages.map(\.payload) }

  /// The messages heard so far, each with its topic (without `-d`'s debug lines).
  var messages: [(topic: String, payload: String)] {
    output.split(separator: "\n").compactMap { line in
      guard !line.hasPrefix("Client "), !line.hasPrefix("Subscribed"), let space = line.firstIndex(of: " ")
      else { return nil }
      return (String(line[..<space]), String(line[line.index(after: space)...]))
    }
  }
}

/// The most memory process `pid` has held so far (`VmHWM`), in KiB; nil if it is gone.
func peakMemoryKiB(_ pid: Int32) -> Int? {
  guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
  else { return nil }
  return Int(line.split(separator: " ").dropFirst().first ?? "")
}
