/// One HTTP response: status, headers, body. Every response the web app sends carries the
/// security headers (`securityHeaders`), added by the server, not by each page.
public struct HTTPResponse: Sendable {
  public var status: Int
  /// In the order they are sent.
  public var headers: [(name: String, value: String)]
  public var body: [UInt8]

  public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// The value of header `name` (any case), if set.
  public func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }

  /// A page.
  public static func page(_ html: HTML, status: Int = 200) -> HTTPResponse {
    HTTPResponse(
      status: status,
      headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
      body: Array(html.text.utf8))
  }

  /// A file the pages load (script, manifest, icon), cacheable for a week: its address changes
  /// with the release where that matters.
  public static func asset(_ text: String, type: String) -> HTTPResponse {
    asset(Array(text.utf8), type: type)
  }

  /// A file the pages load, as bytes (an icon).
  public static func asset(_ bytes: [UInt8], type: String) -> HTTPResponse {
    HTTPResponse(
      status: 200, headers: [("Content-Type", type), ("Cache-Control", "public, max-age=604800")], body: bytes
    )
  }

  /// `303 See Other` to `location` (a path of this site): the answer to every form.
  public static func redirect(to location: String) -> HTTPResponse {
    HTTPResponse(
      status: 303, headers: [("Location", location), ("Cache-Control", "no-store")],
      body: Array("See \(location)\n".utf8))
  }

  /// A short plain-text answer (a refusal, 404).
  public static func text(_ text: String, status: Int) -> HTTPResponse {
    HTTPResponse(
      status: status,
      headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")],
      body: Array((text + "\n").utf8))
  }

  /// With a `Set-Cookie` header added.
  public func setting(cookie: String) -> HTTPResponse {
    var response = self
    response.headers.append(("Set-Cookie", cookie))
    return response
  }

  /// The headers every response carries: a Content-Security-Policy that allows nothing but
  /// this origin's own style sheet, images and scripts (no inline script or style, no frames,
  /// forms only to this origin), no MIME sniffing, no referrer, and no framing by old browsers
  /// that ignore `frame-ancestors`.
  public static let securityHeaders: [(name: String, value: String)] = [
    (
      "Content-Security-Policy",
      "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; connect-src 'self';"
        + " manifest-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
    ("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()"),
  ]
}
