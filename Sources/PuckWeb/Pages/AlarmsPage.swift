import PuckCore

/// The alarms: each with its time, days, label and next ring, and its buttons (enable or
/// disable, skip the next one, delete); then the form that adds one.
public enum AlarmsPage {
  public static func render(
    _ alarms: [AlarmView], dockPausedUntil: LocalDate?, time: TimeText, csrf: String, flash: Flash?
  ) -> HTML {
    let list: HTML
    if alarms.isEmpty {
      list = "<section><p>No alarms yet: add one below.</p></section>"
    } else {
      let today = time.zone.localDateTime(at: time.now).date
      let items = alarms.map {
        item(for: $0, dockPausedUntil: dockPausedUntil, today: today, time: time, csrf: csrf)
      }
      list = "<ul class=\"plain\" aria-label=\"Alarms\">\(items)</ul>"
    }
    return Layout.page(
      title: "Alarms", place: .alarms, csrf: csrf, flash: flash,
      body: """
        \(list)
        \(addForm(csrf: csrf))
        """)
  }

  static func item(
    for view: AlarmView, dockPausedUntil: LocalDate?, today: LocalDate, time: TimeText, csrf: String
  ) -> HTML {
    let alarm = view.alarm
    let name = alarm.label.isEmpty ? "Alarm \(alarm.id)" : alarm.label
    var notes: [HTML] = []
    if !alarm.enabled { notes.append("<span class=\"warn\">disabled</span>") }
    if !alarm.requiresPuck { notes.append("<span class=\"muted\">no puck needed</span>") }
    if let skipped = alarm.skippedDate {
      notes.append("<span class=\"warn\">skipping \(TimeText.date(skipped))</span>")
    }
    if let paused = alarm.pausedUntil, paused > today {
      let whose = paused == dockPausedUntil ? "dock paused" : "paused"
      notes.append("<span class=\"warn\">\(whose) until \(TimeText.date(paused))</span>")
    }
    // Inside lock_before nothing may remove or delay it (docs/DESIGN.md S12): say so, and how
    // it ends early, rather than offer buttons puckd refuses.
    if let locked = view.lockedUntil {
      notes.append(
        "<span class=\"warn\">locked until it rings at \(time.local(locked)): up already? Scan the puck</span>"
      )
    }
    let next: HTML =
      view.next.map { "<p>Next: \(time.local($0)) (\(time.relative($0)))</p>" }
      ?? "<p class=\"muted\">Does not ring.</p>"
    let path = "/alarms/\(alarm.id)"
    let toggle =
      alarm.enabled
      ? Layout.button(
        "Disable", action: path + "/disable", csrf: csrf, style: "secondary",
        accessibleLabel: "Disable \(name)")
      : Layout.button("Enable", action: path + "/enable", csrf: csrf, accessibleLabel: "Enable \(name)")
    let skip: HTML? =
      alarm.enabled && view.next != nil
      ? Layout.button(
        "Skip next", action: path + "/skip", csrf: csrf, style: "secondary",
        accessibleLabel: "Skip the next \(name)")
      : nil
    let edit: HTML = "<a class=\"button secondary\" href=\"\(path)\" aria-label=\"Change \(name)\">Change</a>"
    let delete = Layout.button(
      "Delete", action: path + "/delete", csrf: csrf, style: "danger", accessibleLabel: "Delete \(name)")
    let noteLine: HTML? = notes.isEmpty ? nil : "<p>\(HTML.joined(interleave(notes, with: " · ")))</p>"
    return """
      <li class="card" id="alarm-\(alarm.id)"><div class="alarm-head"><span class="big">\(alarm.time.description)</span>\
      <span>\(alarm.recurrence.summary)</span><strong>\(name)</strong></div>
      \(noteLine)\(next)
      <div class="actions">\(edit)\(toggle)\(skip)\(delete)</div></li>
      """
  }

  static func addForm(csrf: String) -> HTML {
    let days = Weekday.allCases.map { day -> HTML in
      """
      <label class="check" for="day-\(day.shortName)"><input type="checkbox" id="day-\(day.shortName)" \
      name="days" value="\(day.shortName)">\(day.description)</label>
      """
    }
    return """
      <section aria-labelledby="add"><h2 id="add">Add an alarm</h2>
      <form method="post" action="/alarms/add">
      \(Layout.csrfField(csrf))
      <label for="time">Time</label>
      <input type="time" id="time" name="time" required>
      <fieldset><legend>Repeat on (none: once)</legend><div class="days">\(days)</div></fieldset>
      <label for="date">Or once, on (empty: the next time the clock shows it)</label>
      <input type="date" id="date" name="date">
      <label for="label">Label</label>
      <input type="text" id="label" name="label" maxlength="64" autocomplete="off">
      <p><label class="check" for="puck"><input type="checkbox" id="puck" name="puck" value="yes" checked>\
      Only a scan of the puck ends it</label></p>
      <div class="actions"><button type="submit">Add alarm</button></div>
      </form></section>
      """
  }

  /// `parts` with `separator` between them.
  static func interleave(_ parts: [HTML], with separator: HTML) -> [HTML] {
    var result: [HTML] = []
    for (index, part) in parts.enumerated() {
      if index > 0 { result.append(separator) }
      result.append(part)
    }
    return result
  }
}
