import Foundation
import Glibc

/// A real `mosquitto` on a loopback port of its own, started and killed by the test.
final class Broker {
  let port: Int
  let directory: URL
  private var process: Process?

  /// A broker on a free port; `config` is added to its configuration (ACLs, password file).
  init(config: String = "allow_anonymous true\n") throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "broker-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    port = Broker.freePort()
    try "listener \(port) 127.0.0.1\n\(config)".write(
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
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    self.process = process
    try waitUntil(timeout: 5, "mosquitto listens on \(port)") { Broker.accepts(port) }
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
  func publish(_ topic: String, _ payload: [UInt8], as account: (user: String, password: String)? = nil)
    throws
    -> ProcessResult
  {
    let file = directory.appendingPathComponent("payload-\(UUID().uuidString.prefix(6))")
    try Data(payload).write(to: file)
    var arguments = ["-p", "\(port)", "-q", "1", "-t", topic, "-f", file.path]
    if let account { arguments += ["-u", account.user, "-P", account.password] }
    return try runExternal("/usr/bin/mosquitto_pub", arguments)
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

  private static func accepts(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
  private static func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
}
