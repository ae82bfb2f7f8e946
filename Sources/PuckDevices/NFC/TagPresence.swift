import PuckCore

/// Turns a stream of poll results (the tag seen by each poll, or none) into arrival and
/// removal events: one arrival per presentation, however many polls see the tag.
///
/// After a gap in observation — polling just enabled, or the reader back from a fault — the
/// first observation is a baseline: a tag in it is reported as not fresh, because it may
/// have been lying there all along. Only a tag that arrives while the reader is watching is
/// fresh. This is what stops a puck left on the reader from resolving a wake guard
/// (PRODUCT §2.7), even across a reader that reset in the night.
struct TagPresence: Sendable {
  /// The tag on the reader as far as we know.
  private(set) var current: TagUID?
  /// Polls in a row that saw no tag while `current` is set.
  private var misses = 0
  /// Whether the next observation is a baseline.
  private var awaitingBaseline = true
  /// Misses in a row that mean the tag was taken away: one missed poll at the edge of the
  /// field is not a removal.
  let removalMisses: Int

  init(removalMisses: Int) {
    self.removalMisses = max(1, removalMisses)
  }

  /// Polling (re)starts for a new purpose: forget everything; whatever the next poll sees is
  /// a baseline.
  mutating func restart() {
    current = nil
    misses = 0
    awaitingBaseline = true
  }

  /// Observation was interrupted (the reader faulted): keep what we knew, but the next poll is
  /// a baseline, since anything could have happened meanwhile.
  mutating func interrupt() {
    misses = 0
    awaitingBaseline = true
  }

  /// Takes one poll's result and returns the events it causes.
  mutating func observe(_ tag: TagUID?) -> [TagReaderEvent] {
    if awaitingBaseline {
      awaitingBaseline = false
      misses = 0
      guard tag != current else { return [] }
      let events: [TagReaderEvent] = current == nil ? [] : [.removed]
      current = tag
      return events + (tag.map { [.scanned($0, fresh: false)] } ?? [])
    }
    if tag == current {
      misses = 0
      return []
    }
    if let tag {
      // A tag arrived, or another replaced the one we knew.
      let events: [TagReaderEvent] = current == nil ? [] : [.removed]
      current = tag
      misses = 0
      return events + [.scanned(tag, fresh: true)]
    }
    misses += 1
    guard misses >= removalMisses else { return [] }
    current = nil
    misses = 0
    return [.removed]
  }
}
