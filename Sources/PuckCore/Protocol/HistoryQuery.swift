/// Which page of the history a `history` request asks for: the newest `limit` entries, or the
/// `limit` entries just older than a cursor an earlier reply gave.
///
/// A cursor is opaque to clients. puckd makes it from the byte offset in `history.jsonl` where
/// the oldest entry of a page starts; the file only grows, so a cursor keeps meaning the same
/// place (and the same next page) however many entries are appended after it was given out.
public struct HistoryQuery: Hashable, Sendable {
  /// Entries sent when the request names no limit.
  public static let defaultLimit = 20
  /// The most entries one request may ask for; older ones are reached page by page.
  public static let maximumLimit = 1000
  /// The limit rule in words, for error messages.
  public static let limitRule =
    "history returns 1-\(maximumLimit) entries per request (at most \(maximumLimit)); "
    + "go further back page by page with --before"

  /// How many entries to send, 1...`maximumLimit`.
  public var limit: Int
  /// Send entries older than this cursor (`nextBefore` of an earlier reply); nil for the newest.
  public var before: Int?

  /// A query; the command table's `history --limit` bounds hold `limit` to 1...`maximumLimit`.
  public init(limit: Int = HistoryQuery.defaultLimit, before: Int? = nil) {
    self.limit = limit
    self.before = before
  }
}
