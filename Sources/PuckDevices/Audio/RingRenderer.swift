/// Produces the samples of a ring: the sound looped end to end, each frame scaled by the
/// volume ramp at its position in the ring.
struct RingRenderer {
  /// The sound being looped.
  let sound: PCMSound
  /// The gain per frame.
  let ramp: VolumeRamp
  /// Frames produced since the ring started (the ramp's clock).
  private(set) var framesRendered = 0
  /// The next frame of `sound`.
  private var position = 0

  /// A renderer at the start of the ring.
  init(sound: PCMSound, ramp: VolumeRamp) {
    self.sound = sound
    self.ramp = ramp
  }

  /// Replaces `buffer`'s contents with the next `frames` frames, interleaved.
  mutating func render(frames: Int, into buffer: inout [Int16]) {
    buffer.removeAll(keepingCapacity: true)
    let channels = sound.channels
    for _ in 0..<max(frames, 0) {
      let first = position * channels
      for channel in 0..<channels {
        buffer.append(ramp.apply(sound.samples[first + channel], atFrame: framesRendered))
      }
      framesRendered += 1
      position += 1
      if position == sound.frameCount { position = 0 }
    }
  }
}
