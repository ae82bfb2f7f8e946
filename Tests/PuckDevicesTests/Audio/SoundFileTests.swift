import CSndfile
import Glibc
import Testing

@testable import PuckDevices

/// The loader against the system's real libsndfile. Every fixture is written at test time by
/// libsndfile's own encoders (FLAC, Vorbis, Opus, and MP3 through LAME), so nothing is checked in.
@Suite struct SoundFileTests {
  /// The formats a user is told they may use, with a rate and channel count each encoder takes.
  static let formats: [Fixture] = [
    Fixture(name: "wav", format: SF_FORMAT_WAV | SF_FORMAT_PCM_16, rate: 44_100, channels: 2, lossy: false),
    Fixture(name: "wav", format: SF_FORMAT_WAV | SF_FORMAT_FLOAT, rate: 22_050, channels: 1, lossy: false),
    Fixture(name: "flac", format: SF_FORMAT_FLAC | SF_FORMAT_PCM_24, rate: 48_000, channels: 2, lossy: false),
    Fixture(name: "ogg", format: SF_FORMAT_OGG | SF_FORMAT_VORBIS, rate: 44_100, channels: 2, lossy: true),
    Fixture(name: "opus", format: SF_FORMAT_OGG | SF_FORMAT_OPUS, rate: 48_000, channels: 1, lossy: true),
    Fixture(
      name: "mp3", format: SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III, rate: 44_100, channels: 2, lossy: true),
  ]

  @Test(arguments: formats) func decodesASineInEveryFormat(_ fixture: Fixture) throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.file("ring.\(fixture.name)")
    let seconds = 1.0
    try #require(fixture.write(sine(440, amplitude: 0.5, seconds: seconds, fixture), to: path))

    let sound = try SoundFile.load(path: path)
    #expect(sound.sampleRate == fixture.rate)
    #expect(sound.channels == fixture.channels)
    let expectedFrames = Int(seconds * Double(fixture.rate))
    if fixture.lossy {
      // Encoders pad to whole blocks; the decoders trim most of it.
      #expect(abs(sound.frameCount - expectedFrames) < expectedFrames / 10, "\(sound.frameCount) frames")
    } else {
      #expect(sound.frameCount == expectedFrames)
    }
    let left = stride(from: 0, to: sound.samples.count, by: sound.channels).map { sound.samples[$0] }
    let frequency = zeroCrossingFrequency(left, rate: sound.sampleRate)
    #expect(abs(frequency - 440) < 440 * 0.02, "measured \(frequency) Hz")
    // Over the middle half: lossy encoders ring at the edges.
    let peak = Double(left[left.count / 4..<left.count * 3 / 4].map { abs(Int($0)) }.max() ?? 0)
    #expect(abs(peak - 16_384) < 16_384 * 0.15, "peak \(peak)")
  }

  @Test func sixteenBitSamplesComeBackExactly() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.file("ring.wav")
    let data: [Int16] = [0, 1000, -1000, .max, .min, 1, -1, 12_345]
    try #require(
      writeShorts(data, format: SF_FORMAT_WAV | SF_FORMAT_PCM_16, rate: 8_000, channels: 2, to: path))
    let sound = try SoundFile.load(path: path)
    #expect(sound.samples == data)
    #expect(sound.channels == 2)
    #expect(sound.sampleRate == 8_000)
  }

  @Test func decodesBytesInMemoryAsItDecodesTheFile() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.file("ring.flac")
    let fixture = Fixture(
      name: "flac", format: SF_FORMAT_FLAC | SF_FORMAT_PCM_16, rate: 32_000, channels: 1, lossy: false)
    try #require(fixture.write(sine(1000, amplitude: 0.3, seconds: 0.5, fixture), to: path))
    let fromFile = try SoundFile.load(path: path)
    #expect(try SoundFile.decode(bytes: readBytes(path), path: "memory") == fromFile)
    #expect(throws: SoundFileError.unsupportedFormat(path: "memory", reason: "Format not recognised.")) {
      try SoundFile.decode(bytes: [], path: "memory")
    }
  }

  @Test func floatSamplesAreScaledAndClipped() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.file("ring.wav")
    let fixture = Fixture(
      name: "wav", format: SF_FORMAT_WAV | SF_FORMAT_FLOAT, rate: 16_000, channels: 1, lossy: false)
    try #require(fixture.write([0.5, -0.25, 1.5, -3, .nan, 0], to: path))
    #expect(try SoundFile.load(path: path).samples == [16_384, -8_192, .max, .min, 0, 0])
  }

  @Test func moreThanTwoChannelsAreMixedDownToMono() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.file("surround.wav")
    let fixture = Fixture(
      name: "wav", format: SF_FORMAT_WAV | SF_FORMAT_PCM_16, rate: 48_000, channels: 4, lossy: false)
    // Two frames of four channels.
    try #require(fixture.write([0.5, 0.5, 0, 0, -0.25, -0.25, -0.25, -0.25], to: path))
    let sound = try SoundFile.load(path: path)
    #expect(sound.channels == 1)
    #expect(sound.samples == [8_192, -8_192])
  }

  @Test func refusesSoundsLongerThanTheLimit() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    // Just over five minutes of 8 kHz mono, and three hours of 44.1 kHz stereo: sparse files
    // (the header and a hole), refused before a sample is decoded.
    let justOver = scratch.file("long.wav")
    try #require(sparseWAV(rate: 8_000, channels: 1, frames: 8_000 * 301, to: justOver))
    #expect(throws: SoundFileError.tooLong(path: justOver, limit: .seconds(300))) {
      try SoundFile.load(path: justOver)
    }
    let hours = scratch.file("hours.wav")
    try #require(sparseWAV(rate: 44_100, channels: 2, frames: 44_100 * 3 * 3600, to: hours))
    #expect(throws: SoundFileError.tooLong(path: hours, limit: .seconds(300))) {
      try SoundFile.load(path: hours)
    }
    // A compressed file whose length is only known by decoding it (Vorbis), just over the limit.
    let vorbis = scratch.file("long.ogg")
    let fixture = Fixture(
      name: "ogg", format: SF_FORMAT_OGG | SF_FORMAT_VORBIS, rate: 8_000, channels: 1, lossy: true)
    try #require(fixture.write(sine(440, amplitude: 0.5, seconds: 301, fixture), to: vorbis))
    #expect(throws: SoundFileError.tooLong(path: vorbis, limit: .seconds(300))) {
      try SoundFile.load(path: vorbis)
    }
    // An MP3's length is not trusted (it may be an estimate), so this one is refused by the
    // decoding itself, once the limit is passed.
    let mp3 = scratch.file("long.mp3")
    let mp3Fixture = Fixture(
      name: "mp3", format: SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III, rate: 8_000, channels: 1, lossy: true)
    try #require(mp3Fixture.write(sine(440, amplitude: 0.5, seconds: 301, mp3Fixture), to: mp3))
    #expect(throws: SoundFileError.tooLong(path: mp3, limit: .seconds(300))) {
      try SoundFile.load(path: mp3)
    }
    // Exactly at the limit is accepted: 8 kHz mono, 5 minutes.
    let atLimit = scratch.file("limit.wav")
    let limitFixture = Fixture(
      name: "wav", format: SF_FORMAT_WAV | SF_FORMAT_PCM_16, rate: 8_000, channels: 1, lossy: false)
    try #require(limitFixture.write(sine(440, amplitude: 0.5, seconds: 300, limitFixture), to: atLimit))
    #expect(try SoundFile.load(path: atLimit).duration == .seconds(300))
  }

  @Test func refusesHighRatesThatWouldTakeTooMuchMemory() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    // 384 kHz stereo: 64 MiB of samples is about 44 s, well before five minutes.
    let path = scratch.file("hirate.wav")
    try #require(sparseWAV(rate: 384_000, channels: 2, frames: 384_000 * 60, to: path))
    // A Result, not the error #expect(throws:) returns: that needs Swift Testing 6.1.
    let loaded = Result { () throws(SoundFileError) in try SoundFile.load(path: path) }
    guard case .failure(let error) = loaded else {
      Issue.record("the sound was loaded")
      return
    }
    #expect(error == .tooLarge(path: path, limitBytes: 64 << 20))
    #expect(error.description.contains("lower sample rate"))
  }

  @Test func refusesEmptyAndSilentSounds() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let empty = scratch.file("empty.wav")
    try #require(
      writeShorts([], format: SF_FORMAT_WAV | SF_FORMAT_PCM_16, rate: 48_000, channels: 1, to: empty))
    #expect(throws: SoundFileError.noAudio(path: empty)) { try SoundFile.load(path: empty) }

    let silent = scratch.file("silent.flac")
    let fixture = Fixture(
      name: "flac", format: SF_FORMAT_FLAC | SF_FORMAT_PCM_16, rate: 48_000, channels: 2, lossy: false)
    try #require(fixture.write([Float](repeating: 0.0005, count: 96_000), to: silent))
    #expect(throws: SoundFileError.silent(path: silent)) { try SoundFile.load(path: silent) }
  }

  @Test func refusesGarbageAndEmptyFilesWithoutCrashing() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    var generator = SplitMix64(seed: 13)
    for size in [0, 1, 4, 12, 44, 200, 4096, 65_536] {
      // Random bytes; not starting with an MPEG frame sync, which libsndfile would try to decode.
      var bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
      if !bytes.isEmpty { bytes[0] = 0x42 }
      let path = scratch.file("garbage-\(size).mp3")
      writeBytes(bytes, to: path)
      let loaded = Result { () throws(SoundFileError) in try SoundFile.load(path: path) }
      if case .failure(.unsupportedFormat(let errorPath, _)) = loaded {
        #expect(errorPath == path)
      } else {
        Issue.record("\(size) random bytes: \(loaded)")
      }
    }
  }

  @Test(arguments: formats) func truncatedFilesThrowOrDecodeWhatIsThere(_ fixture: Fixture) throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let whole = scratch.file("whole.\(fixture.name)")
    try #require(fixture.write(sine(440, amplitude: 0.5, seconds: 1, fixture), to: whole))
    let bytes = readBytes(whole)
    // Cut inside the header: nothing to decode.
    for length in [0, 3, 10] {
      let path = scratch.file("cut-\(length).\(fixture.name)")
      writeBytes(Array(bytes.prefix(length)), to: path)
      #expect(throws: SoundFileError.self, "cut at \(length) bytes") { try SoundFile.load(path: path) }
    }
    // Cut inside the audio. FLAC knows its length, so a cut is refused as damaged; WAV and MP3
    // do not (libsndfile trusts the file's size over the WAV header, and an MP3 is a stream of
    // frames): the part that is there plays. Vorbis and Opus depend on libsndfile's version:
    // 1.2.0 (bookworm) refuses a cut as damaged; 1.2.2 (trixie) plays what decodes, or finds no
    // audio when nothing does. Each is safe: a refused sound leaves the built-in tone.
    let refusesACut = fixture.name == "flac"
    let mayFindNoAudio = ["ogg", "opus"].contains(fixture.name)
    for fraction in [0.1, 0.5, 0.9] {
      let length = Int(Double(bytes.count) * fraction)
      let path = scratch.file("cut-\(length).\(fixture.name)")
      writeBytes(Array(bytes.prefix(length)), to: path)
      do {
        let sound = try SoundFile.load(path: path)
        #expect(!refusesACut, "cut at \(length) of \(bytes.count) bytes: \(sound.frameCount) frames")
        #expect(sound.frameCount < fixture.rate)
      } catch {
        let errorPath: String
        switch error {
        case .corrupt(let found, _): errorPath = found
        case .noAudio(let found) where mayFindNoAudio: errorPath = found
        default:
          Issue.record("cut at \(length) of \(bytes.count) bytes: \(error)")
          continue
        }
        #expect(errorPath == path)
      }
    }
  }

  /// Bit flips and overwritten runs in real files of each format: the loader returns a sound or
  /// throws; it never crashes, hangs or returns something `PCMSound` would not accept.
  @Test(arguments: formats) func damagedFilesNeverCrash(_ fixture: Fixture) throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let whole = scratch.file("whole.\(fixture.name)")
    try #require(fixture.write(sine(660, amplitude: 0.7, seconds: 0.2, fixture), to: whole))
    let bytes = readBytes(whole)
    var generator = SplitMix64(seed: UInt64(fixture.format))
    let path = scratch.file("damaged.\(fixture.name)")
    for _ in 0..<60 {
      var damaged = bytes
      for _ in 0..<Int.random(in: 1...8, using: &generator) {
        let at = Int.random(in: 0..<damaged.count, using: &generator)
        let run = Int.random(in: 1...4, using: &generator)
        for index in at..<min(at + run, damaged.count) {
          damaged[index] = .random(in: 0...255, using: &generator)
        }
      }
      writeBytes(damaged, to: path)
      if let sound = try? SoundFile.load(path: path) {
        #expect(
          PCMSound(sampleRate: sound.sampleRate, channels: sound.channels, samples: sound.samples) != nil)
      }
    }
  }

  @Test func reportsMissingAndNonRegularFilesWithThePath() {
    #expect(
      throws: SoundFileError.unreadable(path: "/nonexistent/ring.flac", reason: "No such file or directory")
    ) {
      try SoundFile.load(path: "/nonexistent/ring.flac")
    }
    #expect(throws: SoundFileError.notRegularFile(path: "/tmp")) { try SoundFile.load(path: "/tmp") }
    #expect(
      SoundFileError.unreadable(path: "/x.ogg", reason: "No such file or directory").description
        == "/x.ogg: cannot read it: No such file or directory")
    #expect(
      SoundFileError.tooLong(path: "/x.mp3", limit: .seconds(300)).description
        == "/x.mp3: plays longer than the limit of 5 minutes; a ring sound loops, so use a shorter excerpt")
  }
}

/// One encoding libsndfile writes fixtures in.
struct Fixture: Sendable, CustomTestStringConvertible {
  let name: String
  let format: Int32
  let rate: Int
  let channels: Int
  let lossy: Bool

  init(name: String, format: Int, rate: Int, channels: Int, lossy: Bool) {
    self.name = name
    self.format = Int32(format)
    self.rate = rate
    self.channels = channels
    self.lossy = lossy
  }

  var testDescription: String { "\(name) 0x\(String(format, radix: 16)) \(rate) Hz × \(channels)" }

  /// Writes interleaved float samples with libsndfile; false (and a recorded issue) on failure.
  func write(_ samples: [Float], to path: String) -> Bool {
    var info = SF_INFO()
    info.samplerate = Int32(rate)
    info.channels = Int32(channels)
    info.format = format
    guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
      Issue.record("sf_open(\(path)) for writing: \(String(cString: sf_strerror(nil)))")
      return false
    }
    defer { sf_close(file) }
    // In blocks: libvorbis crashes on one write of a few million frames.
    let frames = samples.count / channels
    let block = 4096
    return stride(from: 0, to: frames, by: block).allSatisfy { start in
      let count = min(block, frames - start)
      return samples.withUnsafeBufferPointer {
        sf_writef_float(file, $0.baseAddress! + start * channels, Int64(count))
      } == count
    }
  }
}

/// Writes 16-bit samples exactly as given.
func writeShorts(_ samples: [Int16], format: Int, rate: Int, channels: Int, to path: String) -> Bool {
  var info = SF_INFO()
  info.samplerate = Int32(rate)
  info.channels = Int32(channels)
  info.format = Int32(format)
  guard let file = sf_open(path, Int32(SFM_WRITE), &info) else { return false }
  defer { sf_close(file) }
  let frames = Int64(samples.count / channels)
  return samples.withUnsafeBufferPointer { sf_writef_short(file, $0.baseAddress, frames) } == frames
}

/// A 16-bit PCM WAV file claiming `frames` frames: a 44-byte header, then a hole (no disk used).
func sparseWAV(rate: Int, channels: Int, frames: Int, to path: String) -> Bool {
  let dataBytes = frames * channels * 2
  let blockAlign = channels * 2
  let header: [UInt8] =
    Array("RIFF".utf8) + le32(36 + dataBytes) + Array("WAVEfmt ".utf8) + le32(16) + le16u(1)
    + le16u(UInt16(channels)) + le32(rate) + le32(rate * blockAlign) + le16u(UInt16(blockAlign)) + le16u(16)
    + Array("data".utf8) + le32(dataBytes)
  writeBytes(header, to: path)
  return truncate(path, off_t(header.count + dataBytes)) == 0
}

/// A sine of `frequency` Hz on every channel, interleaved.
func sine(_ frequency: Double, amplitude: Double, seconds: Double, _ fixture: Fixture) -> [Float] {
  let frames = Int(seconds * Double(fixture.rate))
  var samples: [Float] = []
  samples.reserveCapacity(frames * fixture.channels)
  for frame in 0..<frames {
    let value = Float(amplitude * sin(2 * Double.pi * frequency * Double(frame) / Double(fixture.rate)))
    for _ in 0..<fixture.channels { samples.append(value) }
  }
  return samples
}

/// The frequency of a periodic signal from its upward zero crossings over its middle half
/// (encoders' padding and fades at the ends are left out).
func zeroCrossingFrequency(_ samples: [Int16], rate: Int) -> Double {
  let start = samples.count / 4
  let end = samples.count * 3 / 4
  guard end > start + 1 else { return 0 }
  var crossings: [Int] = []
  for index in start + 1..<end where samples[index - 1] < 0 && samples[index] >= 0 {
    crossings.append(index)
  }
  guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
  return Double(crossings.count - 1) * Double(rate) / Double(last - first)
}

func le16u(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

/// A small deterministic generator, so a failure repeats.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
