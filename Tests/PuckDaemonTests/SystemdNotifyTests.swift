import Glibc
import PuckCore
import PuckSystem
import Testing

/// What the daemon tells systemd (`StatusReporter`, `Watchdog`), on the manual clock: the
/// watchdog's pings come from the dock's clock, so they are counted, not waited for.
@Suite("systemd notification", .serialized)
struct SystemdNotifyTests {
  @Test(
    "READY=1 with the status line at start, WATCHDOG=1 at half of WATCHDOG_USEC, a new STATUS= when an alarm rings"
  )
  func readyStatusAndWatchdog() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    let systemd = try NotifySocket(path: dock.directory + "/notify")
    dock.variables = ["NOTIFY_SOCKET": systemd.path, "WATCHDOG_USEC": "20000000"]
    try dock.start()
    let atStart = systemd.received()
    #expect(atStart.contains("READY=1\nSTATUS=no alarm scheduled"))
    #expect(!atStart.contains("WATCHDOG=1"), "the first ping comes after half the interval")

    try dock.advance(.seconds(35))
    #expect(systemd.received().filter { $0 == "WATCHDOG=1" }.count == 3, "at 10, 20 and 30 s")

    try dock.addAlarm(6, 1, days: Set(Weekday.allCases))
    _ = systemd.received()
    try dock.advance(to: "2026-03-02T06:01:00Z")
    #expect(systemd.received().contains { $0.hasPrefix("STATUS=RINGING") })
  }

  @Test("without WATCHDOG_USEC no ping is sent; a watchdog meant for another process is not ours")
  func noWatchdogUnlessAsked() throws {
    for variables in [[:], ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "\(getpid() + 1)"]] {
      let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
      let systemd = try NotifySocket(path: dock.directory + "/notify")
      dock.variables = variables.merging(["NOTIFY_SOCKET": systemd.path]) { $1 }
      try dock.start()
      try dock.advance(.seconds(60))
      let messages = systemd.received()
      #expect(messages.contains { $0.hasPrefix("READY=1") })
      #expect(!messages.contains("WATCHDOG=1"))
    }
  }
}

/// A datagram socket in systemd's place, bound at `path`.
private final class NotifySocket {
  let path: String
  private let fd: Int32

  init(path: String) throws {
    self.path = path
    fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
    let address = try #require(UnixSocketAddress(path))
    let bound = address.withSockaddr { bind(fd, $0, $1) }
    try #require(fd >= 0 && bound == 0, "bind \(path): errno \(errno)")
  }

  deinit { close(fd) }

  /// The datagrams that arrived since the last call.
  func received() -> [String] {
    var messages: [String] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while case let count = recv(fd, &buffer, buffer.count, 0), count > 0 {
      messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
    }
    return messages
  }
}
