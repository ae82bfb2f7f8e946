/// How long to wait before the next attempt to reopen a reader that failed: 0.5 s, doubling
/// up to 10 s, so a reader that comes back is found quickly and one that stays away costs
/// little.
struct ReopenBackoff: Sendable {
  let initial: Duration
  let maximum: Duration
  private var next: Duration

  init(initial: Duration, maximum: Duration) {
    self.initial = initial
    self.maximum = maximum
    next = initial
  }

  /// The delay before the next attempt; each call doubles the one after, up to `maximum`.
  mutating func delay() -> Duration {
    defer { next = min(next * 2, maximum) }
    return next
  }

  /// The reader answered: the next failure starts again from `initial`.
  mutating func reset() {
    next = initial
  }
}
