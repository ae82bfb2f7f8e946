import PuckClient
import PuckCore

/// How the web app reaches puckd: one request, its final reply. A reply with `ok: false` is a
/// reply; only a dock that cannot be reached is an error. Tests put a scripted dock here.
public protocol DockLink: Sendable {
  func send(_ request: ControlRequest) throws(ControlFailure) -> ControlReply
}

/// The dock through its control socket: `puck-web` runs as its own user, in the `puckalarm`
/// group, and puckd gives that user the `web` role, narrower than the group's: no stop, scan,
/// rehearsal or answer to the wake-up check (docs/DESIGN.md C2).
public struct SocketDockLink: DockLink {
  /// How long one read or write of a request may wait before the page says the dock is not
  /// answering: longer than the pre-flight check's own 5 s limit.
  public static let timeout: Duration = .seconds(8)

  private let client: DaemonClient

  public init(socketPath: String) {
    client = DaemonClient(socketPath: socketPath, timeout: Self.timeout)
  }

  public func send(_ request: ControlRequest) throws(ControlFailure) -> ControlReply {
    do {
      return try client.send(request)
    } catch let failure as ControlFailure {
      throw failure
    } catch ClientError.notRunning {
      throw ControlFailure(.failed, "puckd is not running")
    } catch ClientError.noAccess {
      throw ControlFailure(.permissionDenied, "puck-web may not reach puckd's socket")
    } catch ClientError.broken(let reason) {
      throw ControlFailure(.failed, reason)
    } catch {
      throw ControlFailure(.failed, "\(error)")
    }
  }
}
