import Foundation
import Glibc

/// A real `puck-web` in front of a `DaemonHarness`'s puckd, on a free loopback port, with a web
/// password set by the real `puckctl web password`; spoken to over plain TCP (`HTTPConnection`).
final class WebHarness {
  static let password = "a long web passphrase"

  let daemon: DaemonHarness
  let port: Int
  let passwordPath: String
  let logPath: String
  private(set) var process: Process?

  /// puckd with a config whose `[web]` section enables the app on 127.0.0.1 at a free port;
  /// call `start()` to run both. `stuckAudio`: puckd's audio device never answers
  /// (`makeAudioStuck`), so each pre-flight check waits its whole 5 s for it.
  init(stuckAudio: Bool = false) throws {
    let port = try freeLoopbackPort()
    var config = "[web]\nenabled = yes\naddress = 127.0.0.1\nport = \(port)\n"
    if stuckAudio { config += "[audio]\ndevice = stuck\n" }
    daemon = try DaemonHarness(config: config, audio: !stuckAudio)
    self.port = port
    passwordPath = daemon.directory.appendingPathComponent("web-password").path
    logPath = daemon.directory.appendingPathComponent("puck-web.log").path
    if stuckAudio { try Self.makeAudioStuck(daemon) }
  }

  /// The audio device `stuck`, in puckd's own ~/.asoundrc: a file PCM writing into a FIFO that
  /// nothing reads, so opening it (as puckd's device check does, off its loop) waits for a
  /// reader for good, as a hung sound card would. The check's timer still ends the check.
  private static func makeAudioStuck(_ daemon: DaemonHarness) throws {
    let home = daemon.directory.appendingPathComponent("home")
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    let fifo = daemon.directory.appendingPathComponent("stuck.fifo").path
    guard mkfifo(fifo, 0o600) == 0 else { throw HarnessError("mkfifo \(fifo): errno \(errno)") }
    try "pcm.stuck { type file; slave.pcm null; file \"\(fifo)\"; format raw }\n".write(
      to: home.appendingPathComponent(".asoundrc"), atomically: true, encoding: .utf8)
    daemon.environment["HOME"] = home.path
  }

  deinit {
    if let process, process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  /// Starts puckd, sets the password, starts puck-web and waits until it takes connections.
  func start() throws {
    _ = try puckalarmGroup()
    try daemon.start()
    let set = try run("puckctl", ["web", "password", "--file", passwordPath], stdin: Self.password + "\n")
    guard set.status == 0 else { throw HarnessError("puckctl web password: \(set.stderr)") }
    let process = Process()
    process.executableURL = Binaries.url("puck-web")
    process.arguments = [
      "--config", daemon.configPath, "--socket", daemon.socketPath, "--password-file", passwordPath,
    ]
    try process.run(appendingOutputTo: logPath)
    self.process = process
    do {
      try waitUntil(timeout: 20, "puck-web takes connections") {
        guard let connection = try? HTTPConnection(port: port) else { return false }
        connection.close()
        return true
      }
    } catch {
      throw HarnessError("\(error); puck-web logged:\n\(log)")
    }
  }

  /// One request on a new connection, read to its end.
  func request(
    _ method: String, _ path: String, cookies: [String] = [], form: String? = nil
  ) throws -> HTTPConnection.Response {
    let connection = try HTTPConnection(port: port)
    defer { connection.close() }
    try connection.send(method, path, cookies: cookies, form: form)
    return try connection.response()
  }

  /// Logs in as a browser does: the login form's cookie and token, then the password. The
  /// session cookie (`puck_session=…`) and the status page's CSRF token.
  func logIn() throws -> (cookie: String, csrf: String) {
    let form = try request("GET", "/login")
    guard let login = form.cookie("puck_login") else { throw HarnessError("no login cookie: \(form.head)") }
    let answer = try request(
      "POST", "/login", cookies: ["puck_login=\(login)"],
      form: "login=\(login)&password=" + Self.password.replacingOccurrences(of: " ", with: "+"))
    guard answer.status == 303, let session = answer.cookie("puck_session") else {
      throw HarnessError("login refused: \(answer.head)")
    }
    let cookie = "puck_session=\(session)"
    let status = try request("GET", "/", cookies: [cookie])
    guard let range = status.body.range(of: #"name="csrf" value="([0-9a-f]+)""#, options: .regularExpression)
    else { throw HarnessError("no CSRF token on the status page: \(status.head)") }
    let field = status.body[range]
    let token = field.dropFirst(#"name="csrf" value=""#.count).dropLast()
    return (cookie, String(token))
  }

  /// What puck-web logged so far.
  var log: String {
    (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
  }
}

/// A port on 127.0.0.1 that nothing listens on now.
func freeLoopbackPort() throws -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
  guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
  defer { close(fd) }
  var address = loopback(port: 0)
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
    }
  }
  guard bound else { throw HarnessError("bind: errno \(errno)") }
  return Int(UInt16(bigEndian: address.sin_port))
}

private func loopback(port: Int) -> sockaddr_in {
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = UInt16(port).bigEndian
  address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
  return address
}

/// One HTTP/1.1 exchange over a TCP connection to 127.0.0.1, closed by the server after its
/// answer (`Connection: close`).
final class HTTPConnection {
  struct Response {
    /// The status line and headers.
    var head: String
    var body: String
    var status: Int {
      Int(head.split(separator: " ", maxSplits: 2).dropFirst().first ?? "") ?? 0
    }

    /// The value a `Set-Cookie` header gives `name`.
    func cookie(_ name: String) -> String? {
      for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("set-cookie: \(name)=") {
        let value = line.dropFirst("set-cookie: \(name)=".count).prefix { $0 != ";" }
        return String(value)
      }
      return nil
    }
  }

  private let fd: Int32

  init(port: Int) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
    var address = loopback(port: port)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard connected else {
      let code = errno
      Glibc.close(fd)
      throw HarnessError("connect to port \(port): errno \(code)")
    }
  }

  func close() { Glibc.close(fd) }

  /// Sends a request; a form is sent url-encoded as the body.
  func send(_ method: String, _ path: String, cookies: [String] = [], form: String? = nil) throws {
    var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    if !cookies.isEmpty { text += "Cookie: \(cookies.joined(separator: "; "))\r\n" }
    if let form {
      text += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n"
    }
    text += "\r\n" + (form ?? "")
    let bytes = Array(text.utf8)
    var sent = 0
    while sent < bytes.count {
      let written = bytes[sent...].withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard written > 0 else { throw HarnessError("send: errno \(errno)") }
      sent += written
    }
  }

  /// Sends `text` as it is (a request a piece at a time); false when the server has closed the
  /// connection.
  func sendRaw(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      == bytes.count
  }

  /// Whether the server has closed the connection (an end of stream or a reset is waiting).
  var isClosedByServer: Bool {
    var byte: UInt8 = 0
    let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
    return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
  }

  /// Whether any of the answer has arrived, without waiting for it.
  var hasAnswerWaiting: Bool {
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
  }

  /// The whole answer: read until the server closes the connection (at most 30 s).
  func response() throws -> Response {
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count == 0 { break }
      guard count > 0 else {
        throw HarnessError("no whole answer: errno \(errno) after \(bytes.count) bytes")
      }
      bytes += buffer[0..<count]
    }
    let text = String(decoding: bytes, as: UTF8.self)
    guard let split = text.range(of: "\r\n\r\n") else { throw HarnessError("no HTTP answer: \(text)") }
    return Response(head: String(text[..<split.lowerBound]), body: String(text[split.upperBound...]))
  }
}
