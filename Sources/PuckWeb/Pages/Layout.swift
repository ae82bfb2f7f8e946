import PuckCore

/// The pages' frame: the document head (the one style sheet, no script, no inline style), the
/// navigation with the logout button, and the message the last form left.
public enum Layout {
  /// A place in the navigation.
  public enum Place: String, CaseIterable, Sendable {
    case status = "/"
    case alarms = "/alarms"
    case holiday = "/pause"
    case history = "/history"

    var title: String {
      switch self {
      case .status: return "Status"
      case .alarms: return "Alarms"
      case .holiday: return "Holiday"
      case .history: return "History"
      }
    }
  }

  /// The style sheet's address; the version makes a new release's sheet a new address, so it
  /// may be cached for long.
  public static let styleSheetPath = "/style.css?v=" + ProductVersion.current

  /// The script's address, versioned like the style sheet's.
  public static let scriptPath = "/app.js?v=" + ProductVersion.current

  /// A whole page. `csrf` is the session's token: nil on the login page (no navigation).
  public static func page(
    title: String, place: Place?, csrf: String?, flash: Flash? = nil, live: Bool = false, body: HTML
  ) -> HTML {
    let navigation: HTML? = csrf.map { csrf in
      let links = Place.allCases.map { link -> HTML in
        let current: HTML = link == place ? " aria-current=\"page\"" : ""
        return "<a href=\"\(link.rawValue)\"\(current)>\(link.title)</a>"
      }
      return """
        <header><nav aria-label="Main">\(links)<form method="post" action="/logout">\
        \(csrfField(csrf))<button type="submit">Log out</button></form></nav></header>
        """
    }
    let script: HTML = "<script src=\"\(scriptPath)\" defer></script>"
    let message: HTML? = flash.map { flash in
      flash.isError
        ? "<p class=\"flash error\" role=\"alert\">\(flash.text)</p>"
        : "<p class=\"flash\" role=\"status\">\(flash.text)</p>"
    }
    return """
      <!doctype html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <meta name="color-scheme" content="dark light">
      <meta name="referrer" content="no-referrer">
      <title>\(title) · PuckAlarm</title>
      <link rel="stylesheet" href="\(styleSheetPath)">
      <link rel="manifest" href="/manifest.webmanifest">
      <link rel="icon" href="/icon.svg" type="image/svg+xml">
      <link rel="apple-touch-icon" href="/apple-touch-icon.png">
      <meta name="theme-color" content="#101214" media="(prefers-color-scheme: dark)">
      <meta name="theme-color" content="#fafafa" media="(prefers-color-scheme: light)">
      \(live ? script : nil)
      </head>
      <body>
      \(navigation)
      <main>
      <h1>\(title)</h1>
      \(message)
      \(body)
      </main>
      </body>
      </html>

      """
  }

  /// The hidden field every form carries: the session's CSRF token.
  public static func csrfField(_ csrf: String) -> HTML {
    "<input type=\"hidden\" name=\"csrf\" value=\"\(csrf)\">"
  }

  /// A form of one button that posts to `action`: enable, skip, delete, resume.
  public static func button(
    _ label: String, action: String, csrf: String, style: String? = nil, accessibleLabel: String? = nil
  ) -> HTML {
    let styleClass: HTML = style.map { " class=\"\($0)\"" } ?? ""
    let aria: HTML = accessibleLabel.map { " aria-label=\"\($0)\"" } ?? ""
    return """
      <form method="post" action="\(action)">\(csrfField(csrf))<button type="submit"\(styleClass)\(aria)>\
      \(label)</button></form>
      """
  }
}
