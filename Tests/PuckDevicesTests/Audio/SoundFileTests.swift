import Testing

@testable import PuckDevices

@Suite struct SoundFileTests {
  @Test func decodes16BitMono22050() throws {
    let data: [Int16] = [0, 1000, -1000, Int16.max, Int16.min]
    let sound = try SoundFile.decodeWAV(wav(rate: 22_050, channels: 1, bits: 16, data: le16(data)))
    #expect(sound.sampleRate == 22_050)
    #expect(sound.channels == 1)
    #expect(sound.samples == data)
  }

  @Test func decodes8BitUnsignedAroundTheMiddle() throws {
    let sound = try SoundFile.decodeWAV(wav(rate: 8_000, channels: 1, bits: 8, data: [0, 128, 255, 64]))
    #expect(sound.samples == [-32_768, 0, 32_512, -16_384])
  }

  @Test func decodes24BitStereoKeepingTheTop16Bits() throws {
    // Left 0x123456, right -2 (0xFFFFFE); left 0x800000 (most negative), right 0x7FFFFF.
    let data: [UInt8] = [0x56, 0x34, 0x12, 0xFE, 0xFF, 0xFF, 0x00, 0x00, 0x80, 0xFF, 0xFF, 0x7F]
    let sound = try SoundFile.decodeWAV(wav(rate: 44_100, channels: 2, bits: 24, data: data))
    #expect(sound.channels == 2)
    #expect(sound.frameCount == 2)
    #expect(sound.samples == [0x1234, -1, Int16.min, Int16.max])
  }

  @Test func decodes32BitAndExtensibleFormat() throws {
    let data: [UInt8] = [0x00, 0x00, 0x34, 0x12, 0xFF, 0xFF, 0xFF, 0xFF]
    let sound = try SoundFile.decodeWAV(
      wav(rate: 48_000, channels: 1, bits: 32, data: data, extensible: true))
    #expect(sound.samples == [0x1234, -1])
  }

  @Test func skipsOtherChunksIncludingOddSizedOnes() throws {
    let list: [UInt8] = Array("LIST".utf8) + le32(3) + [1, 2, 3, 0]  // padded to even
    let bytes = wav(rate: 16_000, channels: 1, bits: 16, data: le16([7, 8]), before: list)
    #expect(try SoundFile.decodeWAV(bytes).samples == [7, 8])
  }

  @Test func loadsFromAFile() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.file("ring.wav")
    writeBytes(wav(rate: 22_050, channels: 1, bits: 16, data: le16([1, 2, 3])), to: path)
    #expect(try SoundFile.load(path: path).samples == [1, 2, 3])
  }

  @Test func rejectsGarbage() {
    let garbage: [UInt8] = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    #expect(throws: SoundFileError.notWAV) { try SoundFile.decodeWAV(garbage) }
    #expect(throws: SoundFileError.notWAV) { try SoundFile.decodeWAV(Array("RIFF".utf8)) }
    #expect(throws: SoundFileError.notWAV) { try SoundFile.decodeWAV([]) }
  }

  @Test func rejectsTruncatedFiles() {
    let whole = wav(rate: 22_050, channels: 1, bits: 16, data: le16([1, 2, 3, 4]))
    #expect(throws: SoundFileError.truncated(chunk: "data")) {
      try SoundFile.decodeWAV(Array(whole.dropLast(3)))
    }
    // Cut inside the fmt chunk.
    #expect(throws: SoundFileError.truncated(chunk: "fmt ")) {
      try SoundFile.decodeWAV(Array(whole.prefix(30)))
    }
    // Header only.
    #expect(throws: SoundFileError.missingChunk("fmt ")) {
      try SoundFile.decodeWAV(Array(whole.prefix(12)))
    }
  }

  @Test func rejectsUnsupportedFormatsWithTheReason() {
    #expect(throws: SoundFileError.unsupportedEncoding(formatTag: 3)) {
      try SoundFile.decodeWAV(wav(rate: 48_000, channels: 1, bits: 32, data: [0, 0, 0, 0], formatTag: 3))
    }
    #expect(throws: SoundFileError.unsupportedBitsPerSample(12)) {
      try SoundFile.decodeWAV(wav(rate: 48_000, channels: 1, bits: 12, data: [0, 0]))
    }
    #expect(throws: SoundFileError.unsupportedChannels(6)) {
      try SoundFile.decodeWAV(
        wav(rate: 48_000, channels: 6, bits: 16, data: [UInt8](repeating: 0, count: 12)))
    }
    #expect(throws: SoundFileError.unsupportedSampleRate(0)) {
      try SoundFile.decodeWAV(wav(rate: 0, channels: 1, bits: 16, data: [0, 0]))
    }
    #expect(throws: SoundFileError.noAudio) {
      try SoundFile.decodeWAV(wav(rate: 48_000, channels: 2, bits: 16, data: [0, 0]))
    }
  }

  @Test func reportsUnreadableFilesWithThePath() {
    #expect(
      throws: SoundFileError.unreadable(path: "/nonexistent/ring.wav", reason: "No such file or directory")
    ) {
      try SoundFile.load(path: "/nonexistent/ring.wav")
    }
    #expect(throws: SoundFileError.notRegularFile(path: "/tmp")) { try SoundFile.load(path: "/tmp") }
  }
}

/// A WAV file: RIFF header, optional extra chunk, "fmt " (16 bytes, or 40 for EXTENSIBLE), "data".
func wav(
  rate: Int, channels: Int, bits: Int, data: [UInt8], formatTag: UInt16 = 1, extensible: Bool = false,
  before extra: [UInt8] = []
) -> [UInt8] {
  let blockAlign = channels * ((bits + 7) / 8)
  var format: [UInt8] =
    le16u(extensible ? 0xFFFE : formatTag) + le16u(UInt16(channels)) + le32(rate) + le32(rate * blockAlign)
    + le16u(UInt16(blockAlign)) + le16u(UInt16(bits))
  if extensible {
    format += le16u(22) + le16u(UInt16(bits)) + le32(channels == 1 ? 4 : 3) + le16u(formatTag)
    format += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
  }
  let body: [UInt8] =
    Array("WAVE".utf8) + extra + Array("fmt ".utf8) + le32(format.count) + format + Array("data".utf8)
    + le32(data.count) + data + (data.count % 2 == 1 ? [0] : [])
  return Array("RIFF".utf8) + le32(body.count) + body
}

func le16(_ values: [Int16]) -> [UInt8] { values.flatMap { le16u(UInt16(bitPattern: $0)) } }
func le16u(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
