/// The files the pages load besides the style sheet, all served by the dock itself: the web app
/// manifest and icons (to install it on a phone's home screen), and the one script, which only
/// enhances pages that work without it.
public enum Assets {
  /// The header the script's own refresh carries: not a person's use of the session.
  public static let refreshHeader = "X-Puck-Refresh"

  /// An icon the dock serves: where, as what, and at what size (`nil`: any, the SVG).
  public struct Icon: Sendable {
    public let path: String
    public let type: String
    /// Width and height in pixels; nil for the SVG, which scales.
    public let size: Int?
    /// The manifest's `purpose`s it is listed under (none: only linked from the pages' head).
    public let purposes: [String]
    public let bytes: [UInt8]
  }

  /// The icons: the SVG (Sources/PuckWeb/Icons/icon.svg: a puck, a round tag, under an alarm
  /// bell's arc, on the app's dark ground, all of it inside the centre circle of 80 % that a
  /// maskable icon keeps, so one drawing serves as an ordinary and as a maskable icon), and PNGs
  /// made from it by `make web-icons` (rsvg-convert) and checked in, so a build needs no image
  /// tool. The home screens want PNGs: iOS ignores an SVG and takes `apple-touch-icon` (180 px;
  /// also the address it asks for when a page names none); Android's install wants 192 and
  /// 512 px in the manifest. Fetched when the app is installed, not when a page loads.
  public static let icons: [Icon] = [
    Icon(
      path: "/icon.svg", type: "image/svg+xml", size: nil, purposes: ["any"], bytes: PackageResources.icon_svg
    ),
    Icon(
      path: "/apple-touch-icon.png", type: "image/png", size: 180, purposes: [],
      bytes: PackageResources.icon_180_png),
    Icon(
      path: "/icon-192.png", type: "image/png", size: 192, purposes: ["any", "maskable"],
      bytes: PackageResources.icon_192_png),
    Icon(
      path: "/icon-512.png", type: "image/png", size: 512, purposes: ["any", "maskable"],
      bytes: PackageResources.icon_512_png),
  ]

  /// The manifest: its name, the status page as the start, a window of its own, the colours,
  /// and every icon that has a purpose (one entry per purpose).
  public static let manifest: String = {
    let entries = icons.flatMap { icon in
      icon.purposes.map { purpose in
        let sizes = icon.size.map { "\($0)x\($0)" } ?? "any"
        return "    { \"src\": \"\(icon.path)\", \"sizes\": \"\(sizes)\", \"type\": \"\(icon.type)\","
          + " \"purpose\": \"\(purpose)\" }"
      }
    }
    let head = """
      {
        "name": "PuckAlarm",
        "short_name": "PuckAlarm",
        "description": "The alarm clock that only lets go when you scan your puck.",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#101214",
        "theme_color": "#101214",
        "icons": [
      """
    return head + "\n" + entries.joined(separator: ",\n") + "\n  ]\n}\n"
  }()

  /// The script (status page): counts the next alarm down each second from the seconds the
  /// page said were left (`data-in`, the dock's clock, not the phone's), and every 30 s fetches the page again and puts its new content
  /// in place, so an open wake-up or a new next alarm shows without a reload. Pages work the
  /// same without it; it adds nothing a person must have. Its fetches carry `refreshHeader`.
  public static let script = """
    "use strict";
    (function () {
      document.documentElement.dataset.live = "on";
      var loaded = performance.now();
      function relative(left) {
        var seconds = Math.round(left - (performance.now() - loaded) / 1000);
        if (seconds <= 0) return "now";
        if (seconds < 60) return "in " + seconds + " s";
        var minutes = Math.ceil(seconds / 60);
        if (minutes < 60) return "in " + minutes + " min";
        if (minutes < 48 * 60) return "in " + Math.floor(minutes / 60) + " h " + (minutes % 60) + " min";
        return "in " + Math.floor(minutes / (24 * 60)) + " days";
      }
      function tick() {
        document.querySelectorAll("[data-in]").forEach(function (element) {
          element.textContent = relative(Number(element.dataset.in));
        });
      }
      function refresh() {
        if (document.hidden || document.activeElement && document.activeElement.form) return;
        var asked = { credentials: "same-origin", cache: "no-store", headers: { "X-Puck-Refresh": "1" } };
        fetch(location.pathname, asked).then(function (response) {
          if (!response.ok || response.redirected) return null;
          return response.text();
        }).then(function (text) {
          if (!text) return;
          var fresh = new DOMParser().parseFromString(text, "text/html").querySelector("main");
          var main = document.querySelector("main");
          if (fresh && main) { main.replaceWith(fresh); loaded = performance.now(); tick(); }
        }).catch(function () {});
      }
      tick();
      setInterval(tick, 1000);
      setInterval(refresh, 30000);
    })();

    """
}
