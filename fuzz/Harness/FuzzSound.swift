// The ring sound's loader (Sources/PuckDevices/Audio/SoundFile.swift with PCMSound.swift,
// compiled into this module by fuzz/run, linked with the system's libsndfile) on the input as
// the contents of a sound file, through the same virtual I/O path as a file on disk. Only the
// Swift side is instrumented: libsndfile's own code is not guided by coverage, but a crash in
// it still fails the run.

/// Decodes the input: it must give a sound `PCMSound` accepts, within the limits, not silent,
/// or an error that names the file.
func fuzzSound(_ data: UnsafeBufferPointer<UInt8>) {
  do {
    let sound = try SoundFile.decode(bytes: Array(data), path: "fuzz.input")
    fuzzCheck(
      PCMSound(sampleRate: sound.sampleRate, channels: sound.channels, samples: sound.samples) != nil,
      "a decoded sound PCMSound refuses")
    fuzzCheck(sound.duration <= SoundFile.maximumDuration, "a sound longer than the limit")
    fuzzCheck(sound.samples.count * 2 <= SoundFile.maximumDecodedBytes, "a sound over the memory limit")
    fuzzCheck(
      sound.samples.contains { $0 > SoundFile.silenceThreshold || $0 < -SoundFile.silenceThreshold },
      "a silent sound accepted")
  } catch {
    fuzzCheck(error.description.hasPrefix("fuzz.input: "), "an error without the path: \(error)")
  }
}
