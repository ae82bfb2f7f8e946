import PuckCore

/// Past wake-ups, newest first, a page at a time, with the CSV download; and the figures of the
/// last weeks (`WakeStats`): the streak, and two charts drawn on the server, the time it takes
/// to get up per weekday and the bypasses per week.
public enum HistoryPage {
  public static func render(
    _ entries: [HistoryEntry], olderCursor: Int?, stats: WakeStats?, time: TimeText, csrf: String,
    flash: Flash?
  ) -> HTML {
    let items = entries.reversed().map { entry -> HTML in
      "<li><strong>\(time.local(entry.closedAt))</strong><br>\(entry.occurrence.displayName): \(entry.ending())</li>"
    }
    let list: HTML =
      entries.isEmpty
      ? "<p>No wake-ups yet.</p>" : "<ul class=\"plain\" aria-label=\"Wake-ups\">\(items)</ul>"
    let older: HTML? = olderCursor.map {
      "<a class=\"button secondary\" href=\"/history?before=\($0)\">Older</a>"
    }
    return Layout.page(
      title: "History", place: .history, csrf: csrf, flash: flash,
      body: """
        \(stats.map(figures))
        <section aria-labelledby="wakeups"><h2 id="wakeups">Wake-ups</h2>\(list)
        <div class="actions">\(older)<a class="button secondary" href="/history.csv" download>Download CSV</a></div>
        </section>
        """)
  }

  static func figures(_ stats: WakeStats) -> HTML {
    let weekdays = BarChart(
      title: "Minutes to get up, per weekday (median)",
      bars: stats.byWeekday.map { day in
        let seconds = day.medianSecondsToGetUp
        return BarChart.Bar(
          label: String(day.weekday.prefix(1)).uppercased() + String(day.weekday.dropFirst()),
          value: Double(seconds ?? 0) / 60, text: seconds.map { "\(($0 + 30) / 60)" } ?? "")
      })
    let weeks = BarChart(
      title: "Bypasses per week",
      bars: stats.byWeek.suffix(8).map { week in
        BarChart.Bar(
          label: "\(week.weekOf.day)/\(week.weekOf.month)", value: Double(week.bypasses),
          text: "\(week.bypasses)")
      })
    return """
      <section aria-labelledby="figures"><h2 id="figures">The last 12 weeks</h2>
      <p><span class="big">\(stats.streak)</span> wake-up\(stats.streak == 1 ? "" : "s") in a row ended by the puck \
      (longest \(stats.longestStreak)); \(stats.bypasses) bypass\(stats.bypasses == 1 ? "" : "es"), \
      \(stats.overrides) override\(stats.overrides == 1 ? "" : "s"), \(stats.missed) missed.</p>
      <h3>Time to get up</h3>\(weekdays.svg)
      <h3>Bypasses</h3>\(stats.byWeek.isEmpty ? "<p class=\"muted\">No wake-ups yet.</p>" : weeks.svg)
      </section>
      """
  }
}
