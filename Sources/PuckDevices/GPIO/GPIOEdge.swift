import PuckSystem

/// A change of an input line's level, as the kernel timestamped it.
///
/// Levels are logical: the line's `active_low` setting is applied by the kernel, so `.rising`
/// means the line became active — for a button wired to ground with `active_low = yes`, the
/// pin fell when the button was pressed.
public struct GPIOEdge: Hashable, Sendable {
  /// Which way the logical level went.
  public enum Kind: Hashable, Sendable {
    /// Became active (pressed).
    case rising
    /// Became inactive (released).
    case falling
  }

  /// Which way the level went.
  public let kind: Kind
  /// When the kernel saw it (`CLOCK_MONOTONIC` on Linux 5.7 and later).
  public let timestamp: MonotonicInstant

  /// An edge of `kind` at `timestamp`.
  public init(_ kind: Kind, at timestamp: MonotonicInstant) {
    self.kind = kind
    self.timestamp = timestamp
  }
}
