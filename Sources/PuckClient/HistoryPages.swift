import PuckCore

/// Reads history a page of `HistoryQuery.maximumLimit` at a time (`history --before`), for the
/// clients that want more than one page: `puckctl history --csv` and `stats`, and the web app's
/// history page and CSV.
public enum HistoryPages {
  /// The entries closed at or after `since` (nil: all of them), from the newest or from the
  /// cursor `before`, oldest first; at most `pages` pages (nil: no bound). `fetch` sends one
  /// request and returns its reply when it succeeded, or throws.
  public static func entries(
    since: Instant?, before start: Int? = nil, pages limit: Int? = nil,
    fetch: (ControlRequest) throws -> ControlReply
  ) rethrows -> [HistoryEntry] {
    var pages: [[HistoryEntry]] = []
    var before = start
    while limit.map({ pages.count < $0 }) ?? true {
      var query: [Field: ArgumentValue] = [.limit: .integer(HistoryQuery.maximumLimit)]
      query[.before] = before.map(ArgumentValue.integer)
      let reply = try fetch(ControlRequest(.history, query))
      let page = reply.history ?? []
      if let since, let oldest = page.first, oldest.closedAt < since {
        pages.append(page.filter { $0.closedAt >= since })
        break
      }
      pages.append(page)
      guard let next = reply.nextBefore else { break }
      before = next
    }
    return pages.reversed().flatMap { $0 }
  }
}
