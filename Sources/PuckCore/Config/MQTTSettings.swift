/// `[mqtt]`: the broker through which remote readers talk to this dock (docs/DESIGN.md M1–M5).
/// Only used when a remote reader is enrolled (`puckctl reader add`).
public struct MQTTSettings: Hashable, Sendable {
  /// `host`: the broker's host name or address.
  public var host = "127.0.0.1"
  /// `port`: 1883 for plain MQTT, 8883 for MQTT over TLS.
  public var port = 1883
  /// `username`: the dock's broker account; none for a broker that allows anonymous clients.
  public var username: String?
  /// `password_file`: a root-only file holding the account's password (an absolute path).
  public var passwordFile: String?
  /// `ca_file`: the CA certificate that signed the broker's; with it the connection uses TLS.
  public var caFile: String?
  /// `dock_name`: this dock's name among the docks a reader serves; the host name by default.
  public var dockName: String?

  /// The range `port` accepts.
  public static let portRange = 1...65_535

  /// Whether `host` names this machine only (`127.0.0.1`, `localhost`, `::1`): a node on
  /// another board cannot reach the broker by that name.
  public var isLoopbackHost: Bool {
    let host = host.lowercased()
    return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
      || host.hasSuffix(".localhost")
  }

  /// The `--broker` value for a node on another board: `host:port`, or, when `host` is this
  /// machine only, `DOCK-ADDRESS:port`, which the person fills in.
  public var addressForNode: String {
    isLoopbackHost ? "DOCK-ADDRESS:\(port)" : "\(host):\(port)"
  }

  public init() {}
}
