import PuckSystem

/// Turns a button's raw edges into presses. Contacts bounce for a few milliseconds, so after
/// an edge is taken, every edge within `window` of it is ignored; a taken rising (logical:
/// became active) edge is a press. Release bounces are taken care of the same way: the falling
/// edge that starts a release opens its own window. Only kernel timestamps are compared, so the
/// result does not depend on how late the reader thread read the edges.
///
/// A pure value; tests feed it edges with chosen timestamps.
struct ButtonDebouncer: Sendable {
  /// How long after a taken edge others are ignored.
  let window: Duration
  /// The timestamp of the last edge taken.
  private var lastTaken: MonotonicInstant?

  /// A debouncer ignoring edges within `window` of the last one taken.
  init(window: Duration) {
    self.window = window
  }

  /// Feeds one edge; true when it is a press.
  mutating func isPress(_ edge: GPIOEdge) -> Bool {
    if let lastTaken {
      let since = edge.timestamp - lastTaken
      // An edge stamped before the last one (a kernel older than 5.7 stamps with the wall
      // clock, which can step back) is taken rather than ignored until the clock catches up.
      if since >= .zero && since < window { return false }
    }
    lastTaken = edge.timestamp
    return edge.kind == .rising
  }
}
