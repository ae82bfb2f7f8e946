/// Lets one report of each kind of repeated happening through per `interval`, and counts the
/// ones held back (docs/DESIGN.md M8): a flood of forged messages writes a line a minute per
/// kind, not a line per message. Pure: the caller gives the time as a `Moment` on a clock that
/// does not step (PuckSystem's `MonotonicInstant` in the shell, an instant moved by hand in
/// tests).
public struct RepeatLimiter<Kind: Hashable & Sendable, Moment: InstantProtocol>: Hashable, Sendable
where Moment.Duration == Duration {
  /// The shortest time between two reports of one kind.
  public let interval: Duration
  private var lastReported: [Kind: Moment] = [:]
  private var heldBack: [Kind: Int] = [:]

  /// A limiter that lets one report of each kind through every `interval`.
  public init(interval: Duration = .seconds(60)) {
    self.interval = interval
  }

  /// Whether to report a happening of `kind` at `now`: nil to hold it back, or how many of that
  /// kind were held back since its last report (0 for the first).
  public mutating func admit(_ kind: Kind, now: Moment) -> Int? {
    if let last = lastReported[kind], last.duration(to: now) < interval {
      heldBack[kind, default: 0] += 1
      return nil
    }
    lastReported[kind] = now
    return heldBack.removeValue(forKey: kind) ?? 0
  }

  /// Calls `write` when a report of `kind` at `now` is let through, with what to add to its
  /// line: nothing, or how many like it were held back since the last one.
  public mutating func report(_ kind: Kind, now: Moment, _ write: (String) -> Void) {
    guard let heldBack = admit(kind, now: now) else { return }
    write(heldBack == 0 ? "" : " (and \(heldBack) more since the last report)")
  }
}
