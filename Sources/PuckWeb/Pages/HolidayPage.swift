import PuckCore

/// The holiday pause of the whole dock: until which date no alarm rings, and the way back.
public enum HolidayPage {
  public static func render(pausedUntil: LocalDate?, today: LocalDate, csrf: String, flash: Flash?) -> HTML {
    let current: HTML
    if let paused = pausedUntil, paused > today {
      current = """
        <section><p class="big warn">Paused until \(TimeText.date(paused))</p>
        <p>No alarm rings before that day; they ring again from it.</p>
        <div class="actions">\(Layout.button("Resume now", action: "/resume", csrf: csrf))</div></section>
        """
    } else {
      current = "<section><p>The dock is not paused: every enabled alarm rings.</p></section>"
    }
    return Layout.page(
      title: "Holiday", place: .holiday, csrf: csrf, flash: flash,
      body: """
        \(current)
        <section aria-labelledby="pause"><h2 id="pause">Pause the whole dock</h2>
        <form method="post" action="/pause">
        \(Layout.csrfField(csrf))
        <label for="until">Alarms ring again on</label>
        <input type="date" id="until" name="until" required min="\(today.adding(days: 1).description)" \
        max="\(today.adding(days: 366).description)">
        <p class="muted">At most a year ahead. Refused while a wake-up is open.</p>
        <div class="actions"><button type="submit">Pause</button></div>
        </form></section>
        """)
  }
}
