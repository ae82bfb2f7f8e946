import PuckCore

/// The status page: protected or why not, an open wake-up and what ends it, the next alarm
/// in the dock's zone with how far away it is, the holiday pause, and each device's health.
public enum StatusPage {
  public static func render(_ status: DockStatus, time: TimeText, csrf: String, flash: Flash?) -> HTML {
    var parts: [HTML] = []
    parts.append(verdict(status))
    parts += status.guards.map { wakeUp($0, time: time) }
    parts.append(next(status, time: time, csrf: csrf))
    parts.append(devices(status, time: time, csrf: csrf))
    return Layout.page(
      title: "Status", place: .status, csrf: csrf, flash: flash, live: true, body: HTML.joined(parts))
  }

  /// Protected or why not, and under it every part that failed without costing protection (a
  /// buzzer that cannot be opened while the audio rings), with its next step: what the person
  /// getting into bed must see, as `puckctl status` shows it.
  static func verdict(_ status: DockStatus) -> HTML {
    let warnings = (status.warnings ?? []).map { warning -> HTML in
      let next: HTML? = warning.next.map { "<br><span class=\"muted\">Next: \($0)</span>" }
      return "<li class=\"warn\">\(warning.text)\(next)</li>"
    }
    guard !status.protected else {
      guard !warnings.isEmpty else {
        return """
          <section aria-labelledby="verdict"><p class="verdict good" id="verdict">Protected</p>
          <p class="muted">An alarm is set, and only a scan of your puck ends it.</p></section>
          """
      }
      return """
        <section aria-labelledby="verdict">
        <p class="verdict warn" id="verdict">Protected, with a warning</p>
        <p class="muted">An alarm is set, and only a scan of your puck ends it, \
        but part of the dock failed:</p>
        <ul>\(warnings)</ul></section>
        """
    }
    let reasons = status.reasonLines.map { reason -> HTML in "<li>\(reason)</li>" }
    return """
      <section aria-labelledby="verdict"><p class="verdict bad" id="verdict">Not protected</p>
      <ul>\(reasons)\(warnings)</ul></section>
      """
  }

  static func wakeUp(_ view: GuardView, time: TimeText) -> HTML {
    let state: HTML =
      view.ringing
      ? "<p class=\"big bad\">Ringing</p>"
      : "<p class=\"big warn\">Open — rings again \(view.retryAt.map { time.relative($0) } ?? "soon")</p>"
    return """
      <section aria-labelledby="wakeup-\(Int(view.openedAt.unixSeconds))">
      <h2 id="wakeup-\(Int(view.openedAt.unixSeconds))">Wake-up: \(view.description)</h2>
      \(state)
      <p><strong>Walk to the reader and scan your puck.</strong> That is the only way to end it: \
      it cannot be stopped from here.</p>
      <p class="muted">Bypassed \(view.bypassCount) time\(view.bypassCount == 1 ? "" : "s"); open since \
      \(time.local(view.openedAt)).</p>
      </section>
      """
  }

  static func next(_ status: DockStatus, time: TimeText, csrf: String) -> HTML {
    let paused: HTML? = status.pausedUntil.map { date in
      """
      <p class="warn">The whole dock is paused: no alarm rings before \(TimeText.date(date)).</p>
      <div class="actions">\(Layout.button("Resume now", action: "/resume", csrf: csrf, style: "secondary"))</div>
      """
    }
    guard let name = status.nextAlarm, let at = status.nextAlarmAt else {
      return """
        <section aria-labelledby="next"><h2 id="next">Next alarm</h2><p>No alarm is scheduled.</p>\(paused)
        <div class="actions"><a class="button" href="/alarms">Add an alarm</a></div></section>
        """
    }
    return """
      <section aria-labelledby="next"><h2 id="next">Next alarm</h2>
      <p class="big">\(time.local(at))</p>
      <p>\(name) — <span id="countdown" data-in="\(Int(at.seconds(since: time.now)))">\(time.relative(at))</span></p>
      <p class="muted">Times are the dock's (\(status.zone)).</p>\(paused)
      </section>
      """
  }

  static func devices(_ status: DockStatus, time: TimeText, csrf: String) -> HTML {
    var items: [HTML] = status.devices.map { device in
      let state: HTML
      switch device.state {
      case .ok: state = "<span class=\"good\">ok</span>"
      case .fault: state = "<span class=\"bad\">fault</span>"
      case .absent: state = "<span class=\"muted\">not fitted</span>"
      case .simulated: state = "<span class=\"warn\">simulated</span>"
      }
      let detail: HTML? = device.detail.isEmpty ? nil : "<br><span class=\"muted\">\(device.detail)</span>"
      let name =
        device.name == "led"
        ? "LED" : String(device.name.prefix(1)).uppercased() + String(device.name.dropFirst())
      return "<li><strong>\(name)</strong>: \(state)\(detail)</li>"
    }
    let clock: HTML
    switch status.clockSynchronized {
    case true?: clock = "<span class=\"good\">synchronised</span>"
    case false?: clock = "<span class=\"bad\">not synchronised</span>"
    case nil: clock = "<span class=\"muted\">unknown</span>"
    }
    items.append("<li><strong>Clock</strong>: \(clock)</li>")
    if let pucks = status.pucks, !pucks.isEmpty {
      for puck in pucks {
        let seen = puck.lastSeen.map { "last seen \(time.local($0))" } ?? "not seen since pairing"
        items.append(
          "<li><strong>Puck</strong>: \(puck.name) (\(puck.tag))<br><span class=\"muted\">paired \(time.local(puck.pairedAt)), \(seen)</span></li>"
        )
      }
    } else if status.pairedTag == nil {
      items.append(
        "<li><strong>Puck</strong>: <span class=\"bad\">none paired</span> (at the dock: <code>sudo puckctl pair</code>)</li>"
      )
    } else {
      items.append("<li><strong>Puck</strong>: <span class=\"good\">paired</span></li>")
    }
    if let check = status.check {
      let verdict: HTML =
        !check.passed
        ? "<span class=\"bad\">failed</span>"
        : check.warnings.isEmpty
          ? "<span class=\"good\">passed</span>" : "<span class=\"warn\">passed with a warning</span>"
      let failed = (check.failures + check.warnings).map { part -> HTML in
        "<br><span class=\"\(part.isWarning ? "warn" : "bad")\">\(part.line)</span>"
      }
      items.append("<li><strong>Last check</strong>: \(verdict), \(time.local(check.at))\(failed)</li>")
    }
    let problems = (status.problems + status.missed.map { "missed: \($0)" }).map { problem -> HTML in
      "<li class=\"warn\">\(problem)</li>"
    }
    return """
      <section aria-labelledby="devices"><h2 id="devices">The dock</h2><ul class="plain">\(items)\(problems)</ul>
      <div class="actions">\(Layout.button("Run the pre-flight check", action: "/check", csrf: csrf, style: "secondary"))</div>
      </section>
      """
  }
}
