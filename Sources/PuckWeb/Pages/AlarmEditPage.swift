import PuckCore

/// One alarm: its form to change time, days or date, label and puck, and its own pause.
public enum AlarmEditPage {
  public static func render(_ view: AlarmView, today: LocalDate, time: TimeText, csrf: String, flash: Flash?)
    -> HTML
  {
    let alarm = view.alarm
    let path = "/alarms/\(alarm.id)"
    let weekly: Set<Weekday>
    let date: String
    switch alarm.recurrence {
    case .weekly(let days):
      weekly = days
      date = ""
    case .once(let day):
      weekly = []
      date = day.description
    }
    let days = Weekday.allCases.map { day -> HTML in
      let checked: HTML = weekly.contains(day) ? " checked" : ""
      return """
        <label class="check" for="day-\(day.shortName)"><input type="checkbox" id="day-\(day.shortName)" \
        name="days" value="\(day.shortName)"\(checked)>\(day.description)</label>
        """
    }
    let puck: HTML = alarm.requiresPuck ? " checked" : ""
    let pause: HTML
    if let paused = alarm.pausedUntil, paused > today {
      pause = """
        <p class="warn">Paused: it does not ring before \(TimeText.date(paused)).</p>
        <div class="actions">\(Layout.button("Resume this alarm", action: path + "/resume", csrf: csrf))</div>
        """
    } else {
      pause = """
        <form method="post" action="\(path)/pause">
        \(Layout.csrfField(csrf))
        <label for="until">It rings again on</label>
        <input type="date" id="until" name="until" required min="\(today.adding(days: 1).description)" \
        max="\(today.adding(days: 366).description)">
        <div class="actions"><button type="submit" class="secondary">Pause this alarm</button></div>
        </form>
        """
    }
    let next: HTML =
      view.next.map { "<p>Next: \(time.local($0)) (\(time.relative($0)))</p>" }
      ?? "<p class=\"muted\">Does not ring.</p>"
    return Layout.page(
      title: alarm.label.isEmpty ? "Alarm \(alarm.id)" : alarm.label, place: .alarms, csrf: csrf,
      flash: flash,
      body: """
        <section>\(next)</section>
        <section aria-labelledby="change"><h2 id="change">Change it</h2>
        <form method="post" action="\(path)/edit">
        \(Layout.csrfField(csrf))
        <label for="time">Time</label>
        <input type="time" id="time" name="time" required value="\(alarm.time.description)">
        <fieldset><legend>Repeat on</legend><div class="days">\(days)</div></fieldset>
        <label for="date">Or once, on</label>
        <input type="date" id="date" name="date" value="\(date)">
        <label for="label">Label</label>
        <input type="text" id="label" name="label" maxlength="64" autocomplete="off" value="\(alarm.label)">
        <p><label class="check" for="puck"><input type="checkbox" id="puck" name="puck" value="yes"\(puck)>\
        Only a scan of the puck ends it</label></p>
        <div class="actions"><button type="submit">Save</button></div>
        </form></section>
        <section aria-labelledby="pause"><h2 id="pause">Pause this alarm</h2>\(pause)</section>
        <p><a href="/alarms">Back to the alarms</a></p>
        """)
  }
}
