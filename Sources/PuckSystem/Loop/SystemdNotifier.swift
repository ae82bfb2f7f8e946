import Glibc

/// Talks to systemd over `$NOTIFY_SOCKET` (sd_notify's datagram protocol) without libsystemd:
/// `READY=1`, `STATUS=…`, `WATCHDOG=1`. Does nothing when not started by systemd.
public struct SystemdNotifier: Sendable {
  private let address: String?
  /// Half of `$WATCHDOG_USEC` when the unit has `WatchdogSec=` and the watchdog is for this
  /// process (`$WATCHDOG_PID` unset or ours).
  public let watchdogInterval: Duration?

  /// Reads `$NOTIFY_SOCKET`, `$WATCHDOG_USEC` and `$WATCHDOG_PID` from `environment`.
  public init(environment: [String: String]) {
    address = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    if let usec = environment["WATCHDOG_USEC"].flatMap(Int64.init), usec > 0,
      environment["WATCHDOG_PID"].flatMap(Int32.init).map({ $0 == getpid() }) ?? true
    {
      watchdogInterval = .microseconds(usec / 2)
    } else {
      watchdogInterval = nil
    }
  }

  /// Sends one notification (`READY=1`, `STATUS=next alarm Mon 06:30`); errors are ignored, as
  /// sd_notify's are: a missing systemd must never stop an alarm.
  public func send(_ message: String) {
    guard let address else { return }
    let flags = Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue)
    guard let datagram = try? FileDescriptor("socket", opening: { socket(AF_UNIX, flags, 0) }) else { return }
    defer { datagram.close() }
    guard let destination = UnixSocketAddress(address) else { return }
    let bytes = Array(message.utf8)
    // One datagram is sent whole or not at all, so this is one call, not a write-all loop.
    _ = try? destination.withSockaddr { (pointer, length) throws(SystemError) in
      try systemCall("sendto") {
        sendto(datagram.rawValue, bytes, bytes.count, Int32(MSG_NOSIGNAL), pointer, length)
      }
    }
  }
}
