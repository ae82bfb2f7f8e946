import Glibc
import PuckCore
import PuckPassword
import PuckStorage
import PuckSystem
import PuckWeb
import Synchronization

/// `puck-web`: the web app (README "The dock from a phone"). Its own process and unit, a client
/// of puckd's control socket with the `puckalarm` group's rights; off until `[web] enabled`.
enum PuckWebMain {
  static let usage = """
    usage: puck-web [--config PATH] [--socket PATH] [--password-file PATH]
    Serves the dock's web app in the foreground, as [web] in the config says. Logs go to stderr
    with <N> syslog prefixes.
      --config PATH          puckd's config (default /etc/puckalarm/puckd.conf)
      --socket PATH          puckd's control socket (default /run/puckalarm/puckd.sock)
      --password-file PATH   the web password's hash, as 'sudo puckctl web password' wrote it
                             (default /etc/puckalarm/web-password)
    Exits 0 at once when [web] enabled = no (ready first, for systemd).
    Signals: SIGTERM/SIGINT stop it.
    """

  static func main() -> Int32 {
    let environment = processEnvironment()
    let system = StandardPaths(environment: environment, isRoot: true)
    var configPath = system.config
    var socketPath = system.socket
    var passwordPath = WebPasswordFile.systemPath
    var arguments = Array(CommandLine.arguments.dropFirst()).makeIterator()
    while let argument = arguments.next() {
      switch argument {
      case "--help", "-h":
        print(usage)
        return 0
      case "--version":
        print("puck-web \(ProductVersion.current)")
        return 0
      case "--config", "--socket", "--password-file":
        guard let value = arguments.next(), !value.isEmpty else {
          WebLog.write("<3>puck-web: \(argument) needs a value (see puck-web --help)")
          return 64
        }
        switch argument {
        case "--config": configPath = value
        case "--socket": socketPath = value
        default: passwordPath = value
        }
      default:
        WebLog.write("<3>puck-web: unknown option \(argument) (see puck-web --help)")
        return 64
      }
    }

    let settings: WebSettings
    do throws(ConfigFileError) {
      settings = try ConfigFile.load(configPath).web
    } catch {
      WebLog.write("<3>puck-web: \(error)")
      return 78
    }
    guard settings.enabled else {
      WebLog.write(
        "<5>puck-web: [web] enabled = no in \(configPath): not serving (README: the dock from a phone)")
      // Ready, then a clean exit: under Type=notify an exit before READY=1 is a failed start,
      // which Restart=on-failure would repeat every few seconds for as long as the app is off.
      SystemdNotifier(environment: environment).send("READY=1\nSTATUS=off: [web] enabled = no")
      return 0
    }
    var tls: HTTPServer.TLS?
    if let certificate = settings.certificate, let key = settings.key {
      do {
        tls = HTTPServer.TLS(
          certificate: try readPEM(certificate, secret: false), key: try readPEM(key, secret: true))
      } catch {
        WebLog.write("<3>puck-web: \(error)")
        return 78
      }
    } else if settings.certificate != nil || settings.key != nil {
      WebLog.write("<3>puck-web: [web] certificate and key go together: set both for HTTPS, or neither")
      return 78
    }

    // The signals are taken by sigwait below, so they are blocked before libmicrohttpd's thread
    // starts and inherits the mask.
    var signals = sigset_t()
    sigemptyset(&signals)
    for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&signals, signal) }
    pthread_sigmask(SIG_BLOCK, &signals, nil)

    let zones = ZoneCache(ZoneInfoDirectory(environment: environment))
    let password = PasswordFileReader(path: passwordPath)
    // The names a phone may use: the config's, and the machine's own (and with .local, as mDNS
    // gives it).
    var nameBuffer = [CChar](repeating: 0, count: 256)
    let ownName =
      gethostname(&nameBuffer, nameBuffer.count - 1) == 0
      ? String(decoding: nameBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    let ownNames = ownName.isEmpty ? [] : [ownName, ownName + ".local"]
    let app = WebApp(
      dock: SocketDockLink(socketPath: socketPath), tokens: SystemTokenSource(),
      passwordHash: { password.current() }, zoneNamed: { zones.rules(named: $0) }, secure: tls != nil,
      hostNames: HostNames(settings.hostnames + ownNames), log: WebLog.write)
    let server: HTTPServer
    do throws(HTTPServerError) {
      server = try HTTPServer(address: settings.address, port: settings.port, tls: tls) { request in
        app.handle(
          request,
          at: WebTime(wall: Instant(unixSeconds: Int64(time(nil))), monotonic: SystemClock.boot.now()))
      }
    } catch {
      WebLog.write("<3>puck-web: \(error)")
      return 1
    }
    let scheme = tls == nil ? "http" : "https"
    let host: String
    switch settings.address {
    case .all: host = "every address"
    case .ipv4(let text): host = text
    case .ipv6(let text): host = "[\(text)]"
    }
    WebLog.write("<6>puck-web: serving \(scheme) on \(host), port \(settings.port); puckd at \(socketPath)")
    _ = password.current()
    SystemdNotifier(environment: environment).send(
      "READY=1\nSTATUS=serving \(scheme) on port \(settings.port)")

    while true {
      var received: Int32 = 0
      guard sigwait(&signals, &received) == 0 else { continue }
      if received == SIGHUP { continue }
      WebLog.write("<6>puck-web: stopping")
      server.stop()
      return 0
    }
  }

  /// A PEM file of `[web]`; a private key (`secret`) must not be readable by others.
  static func readPEM(_ path: String, secret: Bool) throws -> String {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw PEMProblem(
        description: "[web] \(secret ? "key" : "certificate") \(path): \(String(cString: strerror(errno)))")
    }
    if secret && info.st_mode & 0o007 != 0 {
      throw PEMProblem(
        description:
          "[web] key \(path) is readable by others (mode \(String(info.st_mode & 0o777, radix: 8)));"
          + " make it root:puckalarm 0640")
    }
    guard let bytes = try DurableFile.read(path), !bytes.isEmpty else {
      throw PEMProblem(description: "[web] \(secret ? "key" : "certificate") \(path) is empty")
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The process's environment.
  static func processEnvironment() -> [String: String] {
    var environment: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
      let text = String(cString: entry)
      if let equals = text.firstIndex(of: "=") {
        environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      pointer += 1
    }
    return environment
  }
}

/// The web password file, read again at each request (a few system calls), so a password set
/// with `sudo puckctl web password` takes effect at once. A problem is logged when it first
/// appears, not at every request.
final class PasswordFileReader: Sendable {
  let path: String
  private let lastProblem = Mutex<String?>(nil)

  init(path: String) {
    self.path = path
  }

  /// The stored hash, or nil when there is none that can be trusted.
  func current() -> PasswordHash? {
    let problem: String
    do throws(WebPasswordFileError) {
      let text = try WebPasswordFile.read(path)
      do throws(PasswordError) {
        let hash = try PasswordHash(encoded: text)
        lastProblem.withLock { $0 = nil }
        return hash
      } catch {
        problem = "\(path): \(error)"
      }
    } catch {
      problem = error.description
    }
    let isNew = lastProblem.withLock { last -> Bool in
      defer { last = problem }
      return last != problem
    }
    if isNew { WebLog.write("<4>puck-web: \(problem)") }
    return nil
  }
}

/// The rules of the zones the dock's status names, read once each.
final class ZoneCache: Sendable {
  private let directory: ZoneInfoDirectory
  private let cache = Mutex<[String: ZoneRules]>([:])

  init(_ directory: ZoneInfoDirectory) {
    self.directory = directory
  }

  /// The zone `name`; the system's, or UTC, when it cannot be read.
  func rules(named name: String) -> ZoneRules {
    if let rules = cache.withLock({ $0[name] }) { return rules }
    let rules = (try? directory.zone(named: name)) ?? (try? directory.systemZone()) ?? .utc
    cache.withLock { $0[name] = rules }
    return rules
  }
}

/// A problem with a PEM file, as the log says it.
struct PEMProblem: Error, CustomStringConvertible {
  let description: String
}

exit(PuckWebMain.main())
