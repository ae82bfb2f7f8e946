import Glibc
import PuckSystem

/// Why a sound file cannot be used. The daemon reports it when the configuration is loaded,
/// long before an alarm fires, and rings with the built-in tone instead.
public enum SoundFileError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file could not be opened or read (the text is `strerror`'s).
  case unreadable(path: String, reason: String)
  /// The file is not a regular file.
  case notRegularFile(path: String)
  /// The file is larger than the limit; a ring tone should be a short loop.
  case tooLarge(path: String, bytes: Int, limit: Int)
  /// The bytes do not start with a RIFF/WAVE header.
  case notWAV
  /// The file ends inside the named chunk or header.
  case truncated(chunk: String)
  /// A required chunk ("fmt " or "data") is missing.
  case missingChunk(String)
  /// The samples are not integer PCM (e.g. IEEE float, µ-law, ADPCM); the code is the WAV format tag.
  case unsupportedEncoding(formatTag: UInt16)
  /// The sample size is not 8, 16, 24 or 32 bits.
  case unsupportedBitsPerSample(Int)
  /// The file has a channel count other than 1 or 2.
  case unsupportedChannels(Int)
  /// The sample rate is outside `PCMSound.sampleRates`.
  case unsupportedSampleRate(Int)
  /// The format chunk contradicts itself (the text says how).
  case inconsistentFormat(String)
  /// The data chunk holds no complete frame.
  case noAudio

  /// A sentence for the log and for status.
  public var description: String {
    let convert = "convert it with: sox IN.wav -b 16 -e signed-integer OUT.wav"
    switch self {
    case .unreadable(let path, let reason): return "cannot read sound file \(path): \(reason)"
    case .notRegularFile(let path): return "sound file \(path) is not a regular file"
    case .tooLarge(let path, let bytes, let limit):
      return "sound file \(path) is \(bytes) bytes; the limit is \(limit) bytes (use a short loop)"
    case .notWAV: return "not a WAV file (no RIFF/WAVE header); only WAV is supported"
    case .truncated(let chunk): return "WAV file is cut short inside its \"\(chunk)\" chunk"
    case .missingChunk(let chunk): return "WAV file has no \"\(chunk)\" chunk"
    case .unsupportedEncoding(let tag):
      return "WAV encoding \(tag) is not integer PCM; \(convert)"
    case .unsupportedBitsPerSample(let bits):
      return "WAV with \(bits)-bit samples is not supported (8, 16, 24 or 32); \(convert)"
    case .unsupportedChannels(let count):
      return "WAV with \(count) channels is not supported (1 or 2); \(convert) -c 2"
    case .unsupportedSampleRate(let rate):
      return "WAV sample rate \(rate) Hz is outside \(PCMSound.sampleRates) Hz"
    case .inconsistentFormat(let reason): return "WAV format chunk is inconsistent: \(reason)"
    case .noAudio: return "WAV file contains no audio"
    }
  }
}

/// Loads a user's ring sound when the configuration is read, not when the alarm fires.
///
/// WAV only: integer PCM of 8, 16, 24 or 32 bits, mono or stereo, any rate alsa-lib can
/// resample from; samples are reduced to 16 bits. libsndfile would add FLAC/Ogg, but it is one
/// more C library on the board for a feature `sox` covers at setup time, so it is left out.
public enum SoundFile {
  /// The largest file accepted (about six minutes of 48 kHz 16-bit stereo).
  public static let maximumBytes = 64 << 20

  /// Reads and decodes the WAV file at `path`.
  public static func load(path: String) throws(SoundFileError) -> PCMSound {
    try decodeWAV(readFile(path))
  }

  /// Decodes WAV file contents: walks the RIFF chunks, reads "fmt " and "data", skips others.
  public static func decodeWAV(_ bytes: [UInt8]) throws(SoundFileError) -> PCMSound {
    guard bytes.count >= 12, bytes.fourCC(at: 0) == "RIFF", bytes.fourCC(at: 8) == "WAVE" else {
      throw .notWAV
    }
    var format: WAVFormat?
    var offset = 12
    while offset + 8 <= bytes.count {
      let id = bytes.fourCC(at: offset)
      let size = Int(bytes.littleEndian(at: offset + 4, width: 4))
      let body = offset + 8
      guard size <= bytes.count - body else { throw .truncated(chunk: id) }
      switch id {
      case "fmt ":
        format = try WAVFormat(bytes[body..<body + size])
      case "data":
        guard let format else { throw .missingChunk("fmt ") }
        return try format.decode(bytes[body..<body + size])
      default:
        break
      }
      // Chunks are padded to an even length.
      offset = body + size + (size & 1)
    }
    if offset < bytes.count { throw .truncated(chunk: "RIFF") }
    throw .missingChunk(format == nil ? "fmt " : "data")
  }

  private static func readFile(_ path: String) throws(SoundFileError) -> [UInt8] {
    // Every failed call is told as `strerror`'s text, whichever call it was.
    func io<Value>(_ body: () throws(SystemError) -> Value) throws(SoundFileError) -> Value {
      do throws(SystemError) {
        return try body()
      } catch {
        throw .unreadable(path: path, reason: error.systemMessage)
      }
    }
    let fd = try io { () throws(SystemError) in
      try systemCall("open") { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
    }
    defer { _ = Glibc.close(fd) }
    var info = stat()
    _ = try io { () throws(SystemError) in try systemCall("fstat") { fstat(fd, &info) } }
    guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile(path: path) }
    let size = Int(info.st_size)
    guard size <= maximumBytes else { throw .tooLarge(path: path, bytes: size, limit: maximumBytes) }
    var bytes = [UInt8](repeating: 0, count: size)
    var filled = 0
    while filled < size {
      let count = try io { () throws(SystemError) in
        try bytes.withUnsafeMutableBytes { buffer in
          Result { () throws(SystemError) in
            // Non-empty here (filled < size), so the buffer has a base address.
            try systemCall("read") { Glibc.read(fd, buffer.baseAddress! + filled, size - filled) }
          }
        }.get()
      }
      if count == 0 { break }  // the file shrank while we read it
      filled += count
    }
    return Array(bytes.prefix(filled))
  }

}

/// The "fmt " chunk of a WAV file, checked.
private struct WAVFormat {
  let channels: Int
  let sampleRate: Int
  let bytesPerSample: Int
  let blockAlign: Int

  private static let pcm: UInt16 = 1
  private static let extensible: UInt16 = 0xFFFE

  init(_ chunk: ArraySlice<UInt8>) throws(SoundFileError) {
    let start = chunk.startIndex
    guard chunk.count >= 16 else { throw .truncated(chunk: "fmt ") }
    var tag = UInt16(chunk.littleEndian(at: start, width: 2))
    channels = Int(chunk.littleEndian(at: start + 2, width: 2))
    sampleRate = Int(chunk.littleEndian(at: start + 4, width: 4))
    blockAlign = Int(chunk.littleEndian(at: start + 12, width: 2))
    let bits = Int(chunk.littleEndian(at: start + 14, width: 2))
    if tag == Self.extensible {
      // WAVE_FORMAT_EXTENSIBLE: the real format tag opens the SubFormat GUID at offset 24.
      guard chunk.count >= 40 else { throw .truncated(chunk: "fmt ") }
      tag = UInt16(chunk.littleEndian(at: start + 24, width: 2))
    }
    guard tag == Self.pcm else { throw .unsupportedEncoding(formatTag: tag) }
    guard [8, 16, 24, 32].contains(bits) else { throw .unsupportedBitsPerSample(bits) }
    guard (1...2).contains(channels) else { throw .unsupportedChannels(channels) }
    guard PCMSound.sampleRates.contains(sampleRate) else { throw .unsupportedSampleRate(sampleRate) }
    bytesPerSample = bits / 8
    guard blockAlign == channels * bytesPerSample else {
      throw .inconsistentFormat(
        "block align \(blockAlign) for \(channels) channel(s) of \(bits)-bit samples")
    }
  }

  /// The data chunk's whole frames as 16-bit samples: 8-bit WAV is unsigned and is centred,
  /// wider samples keep their top 16 bits.
  func decode(_ data: ArraySlice<UInt8>) throws(SoundFileError) -> PCMSound {
    let sampleCount = data.count / blockAlign * channels
    guard sampleCount > 0 else { throw .noAudio }
    var samples = [Int16](repeating: 0, count: sampleCount)
    var offset = data.startIndex
    for index in 0..<sampleCount {
      switch bytesPerSample {
      case 1: samples[index] = Int16(Int(data[offset]) - 128) << 8
      default:
        // Little-endian: the two most significant bytes are the last two.
        let high = offset + bytesPerSample - 2
        samples[index] = Int16(bitPattern: UInt16(data[high]) | UInt16(data[high + 1]) << 8)
      }
      offset += bytesPerSample
    }
    guard let sound = PCMSound(sampleRate: sampleRate, channels: channels, samples: samples) else {
      throw .noAudio  // unreachable: the format was checked above
    }
    return sound
  }
}

extension Collection<UInt8> where Index == Int {
  /// The four ASCII characters at `offset` (a RIFF chunk id).
  fileprivate func fourCC(at offset: Int) -> String {
    String(decoding: self[offset..<offset + 4], as: Unicode.ASCII.self)
  }

  /// The unsigned little-endian integer of `width` bytes at `offset`.
  fileprivate func littleEndian(at offset: Int, width: Int) -> UInt64 {
    (0..<width).reduce(0) { value, byte in value | UInt64(self[offset + byte]) << (8 * byte) }
  }
}
