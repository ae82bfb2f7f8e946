import PuckCore
import PuckSystem

/// Turns a stream of poll results (the tag seen by each poll, or none) into arrival and
/// removal events: one arrival per presentation, however many polls see the tag.
///
/// A tag counts as gone only once it has been absent for a settled interval: `removalMisses`
/// polls in a row *and* `settledAbsence` of time. Only then is its next arrival a new
/// presentation. Any shorter absence is not one: a PN532 lists one target per poll, and with a
/// puck and a sticker both in the field anticollision answers one, then the other, so each
/// seems to vanish and come back every other poll; a tag at the edge of the field misses the odd
/// poll too. Neither is a person lifting the puck (docs/DESIGN.md W7).
///
/// After a gap in observation — polling just enabled, or the reader back from a fault — what
/// the reader sees is a baseline: a tag first seen before the reader has watched for a settled
/// interval is reported as not fresh, because it may have been lying there all along (alone or
/// answering in turn with another). Only a tag that arrives after it was seen absent for a
/// settled interval is fresh. This is what stops a puck left on the reader from resolving a wake
/// guard, even across a reader that reset in the night.
struct TagPresence: Sendable {
  /// What is known of one tag seen since observation (re)started.
  private struct Track: Sendable {
    /// Reported as lying on the reader (an arrival was emitted, no removal since).
    var present: Bool
    /// Polls in a row that did not see it.
    var missedPolls: Int
    /// When the first of those polls happened.
    var missedSince: MonotonicInstant?
  }

  /// The tags seen recently; a tag absent for a settled interval is dropped (an unknown tag is
  /// treated as absent since observation started, which is what its track would say).
  private var tracks: [TagUID: Track] = [:]
  /// Polls since observation (re)started.
  private var watchedPolls = 0
  /// When the first of those polls happened.
  private var watchingSince: MonotonicInstant?
  /// Polls in a row without a tag before it counts as gone.
  let removalMisses: Int
  /// How long a tag must be absent, at least, before it counts as gone.
  let settledAbsence: Duration

  init(removalMisses: Int, settledAbsence: Duration = .zero) {
    self.removalMisses = max(1, removalMisses)
    self.settledAbsence = max(.zero, settledAbsence)
  }

  /// The tags reported as lying on the reader now.
  var present: Set<TagUID> {
    Set(tracks.filter(\.value.present).keys)
  }

  /// Polling (re)starts for a new purpose: forget everything; whatever the reader sees until it
  /// has watched for a settled interval is a baseline.
  mutating func restart() {
    tracks = [:]
    watchedPolls = 0
    watchingSince = nil
  }

  /// Observation was interrupted (the reader faulted): keep which tags were on the reader, but
  /// the time unobserved proves no absence, so absence and the baseline are counted afresh.
  mutating func interrupt() {
    watchedPolls = 0
    watchingSince = nil
    tracks = tracks.filter(\.value.present).mapValues { _ in Track(present: true, missedPolls: 0) }
  }

  /// Takes one poll's result, made at `now`, and returns the events it causes.
  mutating func observe(_ tag: TagUID?, at now: MonotonicInstant = .now()) -> [TagReaderEvent] {
    if watchingSince == nil { watchingSince = now }
    defer { watchedPolls += 1 }
    var events: [TagReaderEvent] = []
    for uid in Array(tracks.keys) where uid != tag {
      guard var track = tracks[uid] else { continue }
      track.missedPolls += 1
      track.missedSince = track.missedSince ?? now
      if isSettled(track, at: now) {
        if track.present { events.append(.removed) }
        tracks[uid] = nil
      } else {
        tracks[uid] = track
      }
    }
    guard let tag else { return events }
    let known =
      tracks[tag]
      ?? Track(present: false, missedPolls: watchedPolls, missedSince: watchedPolls > 0 ? watchingSince : nil)
    if !known.present {
      events.append(.scanned(tag, fresh: isSettled(known, at: now)))
    }
    tracks[tag] = Track(present: true, missedPolls: 0)
    return events
  }

  /// Whether `track` has been absent long enough to count as gone.
  private func isSettled(_ track: Track, at now: MonotonicInstant) -> Bool {
    guard track.missedPolls >= removalMisses, let since = track.missedSince else { return false }
    return now - since >= settledAbsence
  }
}
