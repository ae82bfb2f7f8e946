import Testing

@testable import PuckDevices

@Suite struct VolumeRampTests {
  @Test func risesLinearlyFromTheStartVolumeToFullOverItsFrames() {
    let ramp = VolumeRamp(startVolume: 0.3, frames: 1000)
    #expect(ramp.gain(atFrame: 0) == 0.3)
    #expect(abs(ramp.gain(atFrame: 500) - 0.65) < 1e-12)
    #expect(ramp.gain(atFrame: 1000) == 1)
    #expect(ramp.gain(atFrame: 50_000) == 1)
    let gains = (0...1000).map(ramp.gain(atFrame:))
    #expect(zip(gains, gains.dropFirst()).allSatisfy { $0 < $1 })
  }

  @Test func appliesTheGainToSamples() {
    let ramp = VolumeRamp(startVolume: 0.5, frames: 100)
    #expect(ramp.apply(10_000, atFrame: 0) == 5_000)
    #expect(ramp.apply(-10_000, atFrame: 50) == -7_500)
    #expect(ramp.apply(Int16.min, atFrame: 100) == Int16.min)
  }

  @Test func outOfRangeStartVolumesAreClampedAndNaNPlaysFull() {
    #expect(VolumeRamp(startVolume: -1, frames: 10).startVolume == 0)
    #expect(VolumeRamp(startVolume: 7, frames: 10).startVolume == 1)
    #expect(VolumeRamp(startVolume: .nan, frames: 10).startVolume == 1)
    #expect(VolumeRamp(startVolume: 0.2, frames: 0).gain(atFrame: 0) == 1)
  }

  @Test func durationsConvertToFramesAtTheSoundsRate() {
    #expect(PCMSound.frames(in: .seconds(60), sampleRate: 48_000) == 2_880_000)
    #expect(PCMSound.frames(in: .milliseconds(250), sampleRate: 22_050) == 5_512)
    #expect(PCMSound.frames(in: .zero, sampleRate: 48_000) == 0)
    #expect(PCMSound.frames(in: .milliseconds(-5), sampleRate: 48_000) == 0)
  }

  @Test func backoffDoublesUpToItsMaximum() {
    let backoff = RetryBackoff.standard
    let delays = (1...7).map(backoff.delay(afterFailures:))
    #expect(
      delays == [
        .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10),
        .seconds(10),
      ])
  }
}
