import PuckCore

/// The names the dock answers to in a request's `Host` header. Against DNS rebinding: a page on
/// another site can point its own name at the dock's address, and the browser then takes the
/// dock for that site (same origin, its cookies, its forms). The dock answers only for an IP
/// address literal, `localhost`, its own host name (also with `.local`, as mDNS gives it) and the
/// names `[web] hostnames` lists; any other name is refused before any route, the login
/// included. A request without `Host` (HTTP/1.0, a script at the dock) is no browser's.
public struct HostNames: Sendable {
  private let names: Set<String>

  /// `names` (the config's, and the machine's own) in any case, with or without a final dot.
  public init(_ names: [String]) {
    self.names = Set((names + ["localhost"]).map(Self.canonical).filter { !$0.isEmpty })
  }

  /// Whether a request whose `Host` header is `header` is for this dock.
  public func allows(_ header: String?) -> Bool {
    guard let header else { return true }
    let host = Self.hostPart(header)
    if host.hasPrefix("[") && host.hasSuffix("]") {
      return ListenAddress.isIPv6(String(host.dropFirst().dropLast()))
    }
    return ListenAddress.isIPv4(host) || names.contains(Self.canonical(host))
  }

  /// `header` without its port: `dock.lan:8469` is `dock.lan`, `[::1]:8469` is `[::1]`.
  static func hostPart(_ header: String) -> String {
    let text = header.filter { $0 != " " && $0 != "\t" }
    if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
      return String(text[...close])
    }
    guard let colon = text.lastIndex(of: ":") else { return text }
    let port = text[text.index(after: colon)...]
    return port.allSatisfy { $0.isASCII && $0.isNumber } ? String(text[..<colon]) : text
  }

  /// Lower case, without a final dot.
  static func canonical(_ name: String) -> String {
    let lower = name.lowercased()
    return lower.hasSuffix(".") ? String(lower.dropLast()) : lower
  }
}
