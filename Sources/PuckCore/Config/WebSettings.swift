/// `[web]`: the web app, `puck-web`, a client of the control socket with the `puckalarm`
/// group's rights (README "The dock from a phone"). Off unless asked for.
public struct WebSettings: Hashable, Sendable {
  /// `enabled`: serve the web app; `puck-web` exits at once while it is off.
  public var enabled = false
  /// `address`: where it listens; every address of the dock by default.
  public var address = ListenAddress.all
  /// `port`: the TCP port it listens on.
  public var port = WebSettings.defaultPort
  /// `certificate`: a PEM certificate (chain); with `key`, the web app speaks HTTPS only.
  public var certificate: String?
  /// `key`: the PEM private key of `certificate`.
  public var key: String?
  /// `hostnames`: the names the web app answers to besides an IP address, `localhost` and the
  /// machine's own host name (also with `.local`), such as the router's DNS name for the dock.
  /// Any other name in a request's `Host` is refused (DNS rebinding).
  public var hostnames: [String] = []

  /// The port when none is set: unassigned by IANA and used by nothing common on a home
  /// network (8080, 8000 and 8123 are often taken: Home Assistant is 8123).
  public static let defaultPort = 8469

  public init() {}

  /// Whether it serves HTTPS: both `certificate` and `key` are set.
  public var usesTLS: Bool { certificate != nil && key != nil }
}

/// The `[web] address` value: every address, or one IPv4 or IPv6 address of the dock.
public enum ListenAddress: Hashable, Sendable, CustomStringConvertible {
  /// `all`: every IPv4 and IPv6 address.
  case all
  /// One IPv4 address in dotted decimal: `192.168.1.20`, `127.0.0.1`.
  case ipv4(String)
  /// One IPv6 address, without brackets: `::1`, `fd00::20`.
  case ipv6(String)

  /// `all`, or an address literal (IPv6 in brackets or not); nil for anything else, a host
  /// name included: the web app binds to an address, it does not resolve names.
  public init?(parsing text: String) {
    if text == "all" {
      self = .all
    } else if Self.isIPv4(text) {
      self = .ipv4(text)
    } else {
      let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
      guard Self.isIPv6(bare) else { return nil }
      self = .ipv6(bare)
    }
  }

  /// The value as written in the config file.
  public var description: String {
    switch self {
    case .all: return "all"
    case .ipv4(let text), .ipv6(let text): return text
    }
  }

  /// Four decimal numbers 0-255 without leading zeros, separated by dots (as `inet_pton` takes them).
  public static func isIPv4(_ text: String) -> Bool {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4
      && parts.allSatisfy { part in
        !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit)
          && (part.count == 1 || part.first != "0") && (Int(part) ?? 256) <= 255
      }
  }

  /// Eight groups of 1-4 hex digits separated by colons, one run of them shortened to `::` at
  /// most once, the last two may be an IPv4 address (as `inet_pton` takes them; no zone).
  public static func isIPv6(_ text: String) -> Bool {
    let halves = text.components(separatedBy: "::")
    guard halves.count <= 2 else { return false }
    var groups = 0
    for (index, half) in halves.enumerated() where !half.isEmpty {
      let parts = half.split(separator: ":", omittingEmptySubsequences: false)
      for (position, part) in parts.enumerated() {
        let isLast = index == halves.count - 1 && position == parts.count - 1
        if isLast && part.contains(".") {
          guard isIPv4(String(part)) else { return false }
          groups += 2
        } else {
          guard (1...4).contains(part.count), part.allSatisfy(\.isHexDigit) else { return false }
          groups += 1
        }
      }
    }
    return halves.count == 2 ? groups <= 7 : groups == 8
  }
}
