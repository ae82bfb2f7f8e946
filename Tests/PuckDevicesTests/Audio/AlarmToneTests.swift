import Testing

@testable import PuckDevices

@Suite struct AlarmToneTests {
  @Test func isMono48kHzAndLoudButNotClipped() {
    let tone = AlarmTone.sound
    #expect(tone.sampleRate == 48_000)
    #expect(tone.channels == 1)
    #expect(tone.duration > .milliseconds(500) && tone.duration < .seconds(3))
    let peak = tone.samples.map { abs(Int($0)) }.max() ?? 0
    #expect(peak > 20_000)
    #expect(peak < Int(Int16.max))
  }

  @Test func beepsAt880ThenAt1320HzWithSilenceBetween() {
    let samples = AlarmTone.sound.samples
    // First beep: frames 0..<6240 (130 ms); a 40 ms gap; second beep from 8160.
    #expect(abs(frequency(of: samples[480..<5760]) - 880) < 15)
    #expect(samples[6300..<8100].allSatisfy { $0 == 0 })
    #expect(abs(frequency(of: samples[8640..<13920]) - 1320) < 15)
    // The cycle ends in a longer pause.
    #expect(samples.suffix(48_000 * 300 / 1000).allSatisfy { $0 == 0 })
  }

  @Test("a chirp as a cue: its beats as 1320 Hz beeps, its pauses silent, then a second of silence")
  func cueOfAChirp() throws {
    let cue = try #require(AlarmTone.cue(.awakeCheck))
    // Four beats of 150 ms on, 150 ms off (7200 frames each), then the tail.
    #expect(cue.channels == 1 && cue.sampleRate == 48_000)
    #expect(cue.duration == .milliseconds(4 * 300) + AlarmTone.cueTail)
    for beat in 0..<4 {
      let start = beat * 14_400
      #expect(abs(frequency(of: cue.samples[(start + 480)..<(start + 6_720)]) - 1320) < 15, "beat \(beat)")
      #expect(cue.samples[(start + 7_200)..<(start + 14_400)].allSatisfy { $0 == 0 }, "pause \(beat)")
    }
    #expect(cue.samples.suffix(48_000).allSatisfy { $0 == 0 })
    #expect(AlarmTone.cue(.blink) == nil, "an endless pattern is no cue")
  }

  /// Frequency in Hz estimated from rising zero crossings.
  private func frequency(of samples: ArraySlice<Int16>) -> Double {
    var rising = 0
    var previous = samples.first ?? 0
    for sample in samples.dropFirst() {
      if previous < 0 && sample >= 0 { rising += 1 }
      previous = sample
    }
    return Double(rising) * 48_000 / Double(samples.count)
  }
}
