/// The files the pages load besides the style sheet, all served by the dock itself: the web app
/// manifest and icon (to install it on a phone's home screen), and the one script, which only
/// enhances pages that work without it.
public enum Assets {
  /// The header the script's own refresh carries: not a person's use of the session.
  public static let refreshHeader = "X-Puck-Refresh"

  /// The manifest: its name, the status page as the start, a window of its own, the colours.
  public static let manifest = """
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
        { "src": "/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any" },
        { "src": "/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "maskable" }
      ]
    }

    """

  /// The icon: a puck (a round tag) under an alarm bell's arc, on the app's dark ground, with the
  /// margin a maskable icon needs.
  public static let icon = """
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">\
    <rect width="512" height="512" fill="#101214"/>\
    <circle cx="256" cy="288" r="112" fill="#7cc4ff"/>\
    <circle cx="256" cy="288" r="56" fill="#101214"/>\
    <path d="M136 168a150 150 0 0 1 240 0" fill="none" stroke="#eceff1" stroke-width="28" stroke-linecap="round"/>\
    </svg>

    """

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
