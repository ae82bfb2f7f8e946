import Glibc
import PuckCore
import PuckDaemon
import PuckDevices
import PuckStorage

/// `puck-reader`: the reader node (docs/DESIGN.md M1–M5). Runs on a second board with a PN532
/// (the kitchen), forwards signed scans to the docks through the MQTT broker, and polls only
/// while a dock wants it.
enum PuckReader {
  static let usage = """
    usage: puck-reader --name NAME --key-file PATH [--broker HOST[:PORT]] [--reader CONNSTRING]
                       [--username USER --password-file PATH] [--ca-file PATH]
                       [--poll-interval DURATION]
    Runs a PuckAlarm reader node in the foreground. Logs go to stderr with <N> syslog prefixes.
      --name NAME           the name the dock enrolled it under (sudo puckctl reader add NAME)
      --key-file PATH       its key, as 'reader add' printed it; root-only (mode 0600)
      --broker HOST[:PORT]  the MQTT broker (default 127.0.0.1:1883)
      --reader CONNSTRING   the libnfc device (default: the first one libnfc finds, which is
                            never a PN532 on UART, I2C or SPI), e.g. pn532_uart:/dev/serial0
                            (a Pi 3, 4 or Zero 2 W), pn532_uart:/dev/ttyAMA0 (a Pi 5)
      --username USER, --password-file PATH   the node's broker account; the file as the key (0600)
      --ca-file PATH        the CA that signed the broker's certificate: TLS
      --poll-interval DURATION   how often the reader polls while a dock wants it (default
                            30ms, as the dock's [reader] poll_interval; 10ms to 1s)
    Signals: SIGTERM/SIGINT stop cleanly (the docks see the node go offline).
    """

  static func main() -> Int32 {
    var name: String?
    var keyFile: String?
    var broker = BrokerSettings()
    var connstring: String?
    var passwordFile: String?
    var pollInterval = ReaderSettings.defaultPollInterval
    var arguments = Array(CommandLine.arguments.dropFirst()).makeIterator()
    while let argument = arguments.next() {
      if argument == "--help" || argument == "-h" {
        print(usage)
        return 0
      }
      if argument == "--version" {
        print("puck-reader \(ProductVersion.current)")
        return 0
      }
      guard let value = arguments.next(), !value.isEmpty else {
        Log.error("puck-reader: \(argument) needs a value (see puck-reader --help)")
        return 64
      }
      switch argument {
      case "--name": name = value
      case "--key-file": keyFile = value
      case "--reader": connstring = value
      case "--username": broker.username = value
      case "--password-file": passwordFile = value
      case "--ca-file": broker.caFile = value
      case "--poll-interval":
        guard let interval = Duration(configText: value), ReaderSettings.pollIntervalRange.contains(interval)
        else {
          Log.error("puck-reader: --poll-interval \(value): a duration from 10ms to 1s, like 30ms")
          return 64
        }
        pollInterval = interval
      case "--broker":
        let parts = value.split(separator: ":", maxSplits: 1)
        broker.host = String(parts[0])
        if parts.count == 2 {
          guard let port = Int(parts[1]), MQTTSettings.portRange.contains(port) else {
            Log.error("puck-reader: --broker \(value): the port must be 1-65535")
            return 64
          }
          broker.port = port
        }
      default:
        Log.error("puck-reader: unknown argument '\(argument)' (see puck-reader --help)")
        return 64
      }
    }
    guard let name, RemoteTopic.isValidName(name) else {
      Log.error("puck-reader: --name takes the enrolled name: 1-32 of a-z 0-9 - _")
      return 64
    }
    guard let keyFile else {
      Log.error("puck-reader: --key-file is required")
      return 64
    }
    let key: ReaderKey
    do {
      guard let text = try ReaderKeyFiles.readNodeKey(keyFile) else {
        Log.error(
          "puck-reader: \(keyFile) does not exist; install the key 'sudo puckctl reader add \(name)' printed")
        return 66
      }
      guard let parsed = ReaderKey(hex: text) else {
        Log.error("puck-reader: \(keyFile) does not hold a key (64 hex digits)")
        return 65
      }
      key = parsed
      // Checked as the key file is: a missing or loose password file is an error, never an
      // anonymous login (issue 22 item 7).
      if let passwordFile { broker.password = try MQTTPasswordFile.read(passwordFile) }
    } catch {
      Log.error("puck-reader: \(error)")
      return 66
    }

    // A log reader or a broker socket that went away is an EPIPE, not the end of the node.
    signal(SIGPIPE, SIG_IGN)
    // Block the stop signals before any thread starts, so every thread inherits the mask.
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGTERM)
    sigaddset(&signals, SIGINT)
    pthread_sigmask(SIG_BLOCK, &signals, nil)

    let node: ReaderNode
    do {
      var configuration = ReaderNode.Configuration(
        name: name, key: key, broker: broker, connstring: connstring)
      configuration.pollInterval = pollInterval
      node = try ReaderNode(configuration) {
        level, message in
        Log.write(Log.Level(rawValue: level) ?? .info, message)
      }
      Log.notice("puck-reader \(ProductVersion.current) starting as reader \(name); broker \(broker.address)")
      try node.start()
    } catch {
      Log.error("puck-reader cannot start: \(error)")
      return 1
    }
    var received: Int32 = 0
    sigwait(&signals, &received)
    Log.notice("signal \(received): stopping")
    node.stop()
    return 0
  }
}

exit(PuckReader.main())
