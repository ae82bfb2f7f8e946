/// One HTTP request as the web app sees it: what libmicrohttpd parsed, plus the body, which
/// the server has already bounded (`HTTPServer.Limits.body`).
public struct HTTPRequest: Sendable {
  /// `GET`, `HEAD`, `POST`, ...
  public var method: String
  /// The path, percent-decoded by libmicrohttpd, without the query: `/alarms/3/skip`.
  public var path: String
  /// The query's arguments, decoded.
  public var query: [String: String]
  /// The headers, by lower-case name; a repeated header keeps its first value.
  public var headers: [String: String]
  /// The body (a form's fields); at most the server's body limit.
  public var body: [UInt8]
  /// The peer's address, for logs: `192.168.1.30`, `fd00::5`.
  public var client: String
  /// The network the looser login limit counts under: the IPv4 address, or the IPv6 /64 the
  /// address is in (one host can pick any address in its /64).
  public var clientKey: String

  public init(
    method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
    body: [UInt8] = [], client: String = "", clientKey: String? = nil
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
    self.client = client
    self.clientKey = clientKey ?? client
  }

  /// The header `name` (any case).
  public func header(_ name: String) -> String? { headers[name.lowercased()] }

  /// The cookies of the `Cookie` header, by name; a repeated name keeps its first value.
  public var cookies: [String: String] {
    var found: [String: String] = [:]
    for pair in (header("cookie") ?? "").split(separator: ";") {
      let parts = pair.split(separator: "=", maxSplits: 1)
      guard parts.count == 2 else { continue }
      let name = String(parts[0].drop { $0 == " " })
      if found[name] == nil { found[name] = String(parts[1]).trimmingCharacters(" ") }
    }
    return found
  }
}

extension String {
  /// Without `character` at either end.
  func trimmingCharacters(_ character: Character) -> String {
    String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
  }
}
