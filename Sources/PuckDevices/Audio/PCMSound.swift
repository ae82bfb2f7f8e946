/// A sound held in memory, ready to play: interleaved signed 16-bit samples, one or two
/// channels, at its own sample rate (alsa-lib resamples when the device needs another).
/// Loaded ahead of time, so nothing is read from disk when an alarm fires.
public struct PCMSound: Sendable, Equatable {
  /// Frames per second.
  public let sampleRate: Int
  /// Samples per frame: 1 (mono) or 2 (stereo, left first).
  public let channels: Int
  /// Interleaved samples; `samples.count` is `frameCount * channels`.
  public let samples: [Int16]

  /// The sample rates accepted, in Hz.
  public static let sampleRates = 1_000...384_000

  /// A sound from interleaved samples; nil when there are no frames, `channels` is not 1 or 2,
  /// the rate is outside `sampleRates`, or the samples do not fill whole frames.
  public init?(sampleRate: Int, channels: Int, samples: [Int16]) {
    guard (1...2).contains(channels), Self.sampleRates.contains(sampleRate),
      !samples.isEmpty, samples.count % channels == 0
    else { return nil }
    self.sampleRate = sampleRate
    self.channels = channels
    self.samples = samples
  }

  /// The number of frames (one sample per channel).
  public var frameCount: Int { samples.count / channels }

  /// How long one pass of the sound plays.
  public var duration: Duration {
    Self.duration(ofFrames: frameCount, sampleRate: sampleRate)
  }

  /// How long `frames` play at `sampleRate` (rounded down to the nanosecond): whole seconds and
  /// the rest apart, so no product overflows however long a ring runs.
  static func duration(ofFrames frames: Int, sampleRate: Int) -> Duration {
    let rate = max(1, sampleRate)
    let (seconds, rest) = frames.quotientAndRemainder(dividingBy: rate)
    return .seconds(seconds) + .nanoseconds(rest * 1_000_000_000 / rate)
  }

  /// The number of frames that play in `duration` at this sound's rate (rounded down).
  public func frames(in duration: Duration) -> Int {
    Self.frames(in: duration, sampleRate: sampleRate)
  }

  /// The number of frames that play in `duration` at `sampleRate` (rounded down; 0 if negative).
  static func frames(in duration: Duration, sampleRate: Int) -> Int {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0, attoseconds >= 0 else { return 0 }
    let rate = Int64(sampleRate)
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: rate)
    // Nanoseconds (< 1e9) times a rate (< 1e6) cannot overflow, unlike attoseconds.
    let fraction = (attoseconds / 1_000_000_000) * rate / 1_000_000_000
    let (total, sumOverflow) = whole.addingReportingOverflow(fraction)
    return overflow || sumOverflow ? Int.max : Int(total)
  }
}
