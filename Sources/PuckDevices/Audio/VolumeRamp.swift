/// The software volume ramp of a ring: a gain per frame that rises linearly (in amplitude)
/// from the start volume to full volume over `frames` frames, then stays at full volume.
/// Measured in frames written, not wall time, so a stalled or reopened device does not
/// skip the quiet start and tests need no clock.
struct VolumeRamp: Sendable, Equatable {
  /// The gain of the first frame, 0...1.
  let startVolume: Double
  /// Frames from the start volume to full volume; 0 means full volume at once.
  let frames: Int

  /// A ramp from `startVolume` (clamped to 0...1; NaN plays at full volume, an alarm must not
  /// go quiet on a bad value) to 1 over `frames` frames.
  init(startVolume: Double, frames: Int) {
    self.startVolume = startVolume.isNaN ? 1 : min(max(startVolume, 0), 1)
    self.frames = max(frames, 0)
  }

  /// `volume` held: a ramp to full volume so long (`Int.max` frames, millions of years at
  /// 48 kHz) that no sound rises by a rounding step while it plays.
  static func steady(_ volume: Double) -> VolumeRamp { VolumeRamp(startVolume: volume, frames: .max) }

  /// The gain for the frame at `index` from the start of the ring.
  func gain(atFrame index: Int) -> Double {
    guard index < frames else { return 1 }
    return startVolume + (1 - startVolume) * Double(index) / Double(frames)
  }

  /// `sample` at the gain of frame `index`, rounded to the nearest value.
  func apply(_ sample: Int16, atFrame index: Int) -> Int16 {
    guard index < frames else { return sample }
    return Int16(clamping: Int((Double(sample) * gain(atFrame: index)).rounded()))
  }
}
