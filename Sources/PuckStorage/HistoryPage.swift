import PuckCore

/// A run of consecutive history entries read from the end of the log backwards
/// (`HistoryLog.readPage`).
public struct HistoryPage<Entry: Sendable>: Sendable {
  /// The entries, oldest first and newest last.
  public var entries: [Entry]
  /// Where the next older page ends: pass it as `before` to continue; nil when this page
  /// reaches the start of the file.
  public var nextBefore: Int?
  /// Problems met on the lines this page read (bad lines, a torn last line).
  public var problems: [StateProblem]

  /// A page.
  public init(entries: [Entry], nextBefore: Int?, problems: [StateProblem] = []) {
    self.entries = entries
    self.nextBefore = nextBefore
    self.problems = problems
  }
}
