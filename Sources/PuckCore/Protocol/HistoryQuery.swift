/// The bounds of a `history` request (`CommandTable.historyLimit`, `historyCursor`): it asks for
/// the newest `limit` entries, or the `limit` entries just older than a cursor (`before`) an
/// earlier reply gave.
///
/// A cursor is opaque to clients. puckd makes it from the byte offset in `history.jsonl` where
/// the oldest entry of a page starts; the file only grows, so a cursor keeps meaning the same
/// place (and the same next page) however many entries are appended after it was given out.
public enum HistoryQuery {
  /// Entries sent when the request names no limit.
  public static let defaultLimit = 20
  /// The most entries one request may ask for; older ones are reached page by page.
  public static let maximumLimit = 1000
  /// The limit rule in words, for error messages.
  public static let limitRule =
    "history returns 1-\(maximumLimit) entries per request (at most \(maximumLimit)); "
    + "go further back page by page with --before"
}
