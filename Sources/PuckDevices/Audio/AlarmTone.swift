import Glibc

/// The built-in alarm tone, generated in code so that a ring never depends on a file: bursts of
/// two beeps (880 Hz, then 1320 Hz) separated by short silences, with a longer pause after every
/// third pair. Mono, 48 kHz, 16-bit.
public enum AlarmTone {
  /// The tone's sample rate in Hz.
  public static let sampleRate = 48_000

  /// One cycle of the tone; the ringer loops it.
  public static let sound: PCMSound = makeSound()

  /// One beep or silence of the pattern.
  private struct Step {
    let frequency: Double  // 0 = silence
    let milliseconds: Int
  }

  private static let pattern: [Step] = {
    let pair = [
      Step(frequency: 880, milliseconds: 130), Step(frequency: 0, milliseconds: 40),
      Step(frequency: 1320, milliseconds: 130), Step(frequency: 0, milliseconds: 90),
    ]
    return pair + pair + pair + [Step(frequency: 0, milliseconds: 380)]
  }()

  /// The silence after a cue's beats: the player stops a cue when this is reached, and what the
  /// device still buffers then is quiet.
  public static let cueTail = Duration.seconds(1)

  /// A finite `pattern` (a buzzer chirp: the wake-up check's question, a failed pre-flight
  /// check) as beeps on the speaker, 1320 Hz, then `cueTail` of silence, so a dock without a
  /// buzzer asks and warns as loudly as one with it. Nil for a pattern that repeats for ever.
  public static func cue(_ pattern: BeatPattern) -> PCMSound? {
    guard let beats = pattern.beats, beats > 0 else { return nil }
    let on = PCMSound.frames(in: pattern.on, sampleRate: sampleRate)
    let off = PCMSound.frames(in: pattern.off, sampleRate: sampleRate)
    var samples: [Int16] = []
    for _ in 0..<beats {
      samples += (0..<on).map { beepSample(1320, $0, of: on) }
      samples += repeatElement(0, count: off)
    }
    samples += repeatElement(0, count: PCMSound.frames(in: cueTail, sampleRate: sampleRate))
    return PCMSound(sampleRate: sampleRate, channels: 1, samples: samples)
  }

  /// Peak amplitude: loud, with some headroom for resamplers that overshoot.
  private static let peak = 0.8 * Double(Int16.max)
  /// The largest value of sin x + 0.3 sin 3x (at sin x = √(1.9/3.6)), rounded up.
  private static let harmonicPeak = 0.9203
  /// Attack and release of each beep, so the edges do not click.
  private static let edgeFrames = sampleRate * 5 / 1000

  private static func makeSound() -> PCMSound {
    var samples: [Int16] = []
    for step in pattern {
      let frames = sampleRate * step.milliseconds / 1000
      for frame in 0..<frames {
        samples.append(step.frequency == 0 ? 0 : beepSample(step.frequency, frame, of: frames))
      }
    }
    guard let sound = PCMSound(sampleRate: sampleRate, channels: 1, samples: samples) else {
      preconditionFailure("the built-in pattern is not empty and mono at 48 kHz")
    }
    return sound
  }

  /// A sine with a third harmonic (harsher, carries better on small speakers), under a
  /// raised-cosine envelope at both ends.
  private static func beepSample(_ frequency: Double, _ frame: Int, of frames: Int) -> Int16 {
    let phase = 2 * Double.pi * frequency * Double(frame) / Double(sampleRate)
    let wave = (sin(phase) + 0.3 * sin(3 * phase)) / harmonicPeak
    let edge = min(frame, frames - 1 - frame)
    let envelope =
      edge >= edgeFrames ? 1 : 0.5 - 0.5 * cos(Double.pi * Double(edge) / Double(edgeFrames))
    return Int16((wave * envelope * peak).rounded())
  }
}
