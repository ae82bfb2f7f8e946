import PuckCore
import PuckSystem

/// An on/off rhythm: on for `on`, off for `off`, repeated `beats` times or for ever. The
/// buzzer's ring (`[buzzer] on`/`off`), its wrong-puck chirp and the LED's blink are beats.
///
/// A pure value: it says what the line shows a given time after the pattern began, and when
/// that next changes, so the drivers' timing can be checked with a manual clock.
public struct BeatPattern: Hashable, Sendable {
  /// How long each beat is on.
  public var on: Duration
  /// The pause after each beat.
  public var off: Duration
  /// How many beats; nil repeats for ever.
  public var beats: Int?

  /// The ring pattern `[buzzer]` configures, repeated until stopped.
  public static func ring(_ settings: BuzzerSettings) -> BeatPattern {
    BeatPattern(on: settings.on, off: settings.off)
  }

  /// The short "wrong puck" buzz: three 80 ms chirps, 80 ms apart (400 ms in all).
  public static let wrongPuck = BeatPattern(on: .milliseconds(80), off: .milliseconds(80), beats: 3)

  /// The pre-flight check's warning: two 500 ms tones, 250 ms apart (1.25 s in all), unlike
  /// both the ring and the wrong-puck chirp, so a person getting into bed can tell it.
  public static let checkFailed = BeatPattern(on: .milliseconds(500), off: .milliseconds(250), beats: 2)

  /// The wake-up check's question: four quick 150 ms beeps (1.05 s), a knock more than a ring.
  public static let awakeCheck = BeatPattern(on: .milliseconds(150), off: .milliseconds(150), beats: 4)

  /// A 4 Hz flicker: 125 ms on, 125 ms off; the LED's "a check failed".
  public static let flicker = BeatPattern(on: .milliseconds(125), off: .milliseconds(125))

  /// A 1 Hz blink: 500 ms on, 500 ms off.
  public static let blink = BeatPattern(on: .milliseconds(500), off: .milliseconds(500))

  /// Whether the line is on `elapsed` after the pattern began (off before it began and after
  /// its last beat).
  public func isOn(after elapsed: Duration) -> Bool {
    let time = elapsed.nanoseconds
    guard time >= 0, on > .zero, !isFinished(after: elapsed) else { return false }
    guard off > .zero else { return true }
    return time % period < on.nanoseconds
  }

  /// When, counted from the pattern's start, the line next changes after `elapsed`; nil when
  /// it never changes again.
  public func nextChange(after elapsed: Duration) -> Duration? {
    let time = elapsed.nanoseconds
    if time < 0 { return on > .zero ? .zero : nil }
    guard on > .zero, !isFinished(after: elapsed) else { return nil }
    guard off > .zero else { return end.map { .nanoseconds($0) } }
    let beatStart = time - time % period
    let change = time % period < on.nanoseconds ? beatStart + on.nanoseconds : beatStart + period
    return .nanoseconds(change)
  }

  /// Whether the last beat is over `elapsed` after the start.
  func isFinished(after elapsed: Duration) -> Bool {
    guard let end else { return false }
    return elapsed.nanoseconds >= end
  }

  /// One beat, in nanoseconds (at least 1, so `%` is defined).
  private var period: Int64 { max(1, on.nanoseconds &+ off.nanoseconds) }

  /// When the last beat's "on" ends, in nanoseconds; nil for a pattern that repeats for ever.
  private var end: Int64? {
    guard let beats else { return nil }
    guard beats > 0 else { return 0 }
    return Int64(beats - 1) &* period &+ on.nanoseconds
  }
}
