import CSndfile
import Glibc
import Synchronization

// Glibc and CSndfile only (no PuckSystem), so that fuzz/run can compile this file with
// PCMSound.swift into its fuzz binary.

/// Why a sound file cannot be used. The daemon reports it when the configuration is loaded
/// (at start and on SIGHUP), long before an alarm fires, and rings with the built-in tone
/// instead. Every case names the file.
public enum SoundFileError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file could not be opened or read (the text is `strerror`'s): missing, no permission.
  case unreadable(path: String, reason: String)
  /// The file is not a regular file (a directory, a device, a FIFO).
  case notRegularFile(path: String)
  /// libsndfile does not know the format, or knows it but not this encoding (its text).
  case unsupportedFormat(path: String, reason: String)
  /// The file looks like a known format but is damaged or cut short (libsndfile's text).
  case corrupt(path: String, reason: String)
  /// The sample rate is outside `PCMSound.sampleRates`.
  case unsupportedSampleRate(path: String, rate: Int)
  /// The file decodes to no frame at all.
  case noAudio(path: String)
  /// Every sample is within `SoundFile.silenceThreshold` of zero: it would ring inaudibly.
  case silent(path: String)
  /// It plays longer than `SoundFile.maximumDuration`.
  case tooLong(path: String, limit: Duration)
  /// It decodes to more than `SoundFile.maximumDecodedBytes` of samples (a high sample rate).
  case tooLarge(path: String, limitBytes: Int)

  /// A sentence for the log and for status.
  public var description: String {
    switch self {
    case .unreadable(let path, let reason): return "\(path): cannot read it: \(reason)"
    case .notRegularFile(let path): return "\(path): not a regular file"
    case .unsupportedFormat(let path, let reason):
      return "\(path): unsupported format (\(reason)); use WAV, FLAC, Ogg Vorbis, Opus or MP3"
    case .corrupt(let path, let reason): return "\(path): damaged or cut short (\(reason))"
    case .unsupportedSampleRate(let path, let rate):
      return "\(path): sample rate \(rate) Hz is outside \(PCMSound.sampleRates) Hz"
    case .noAudio(let path): return "\(path): contains no audio"
    case .silent(let path): return "\(path): contains only silence; it would ring inaudibly"
    case .tooLong(let path, let limit):
      return "\(path): plays longer than the limit of \(SoundFile.minutes(limit)); "
        + "a ring sound loops, so use a shorter excerpt"
    case .tooLarge(let path, let limitBytes):
      return "\(path): decodes to more than \(limitBytes >> 20) MiB of samples at its sample rate; "
        + "use a lower sample rate (48 kHz is plenty) or a shorter excerpt"
    }
  }
}

/// Loads a user's ring sound when the configuration is read, never when the alarm fires
/// (DESIGN.md D9).
///
/// Any format the system's libsndfile reads: on bookworm (1.2) and trixie that is WAV (any
/// integer or float encoding), AIFF, FLAC, Ogg Vorbis, Ogg Opus and MP3, among others. The whole
/// file is decoded up front into 16-bit samples at the file's own sample rate (alsa-lib
/// resamples when the device needs another, as for the built-in tone); mono and stereo stay as
/// they are, more channels are mixed down to mono. Decoding stops at `maximumDuration` or
/// `maximumDecodedBytes`, whichever comes first, so a multi-hour file cannot fill the board's
/// memory: it is refused.
public enum SoundFile {
  /// The longest sound accepted. A ring sound loops; five minutes is plenty.
  public static let maximumDuration = Duration.seconds(5 * 60)
  /// The most memory the decoded samples may take (16 bits each): five minutes of stereo at up
  /// to 55 kHz fit; a higher rate is refused before five minutes.
  public static let maximumDecodedBytes = 64 << 20
  /// Peak amplitude (out of 32,767) at or below which a sound counts as silent: about -60 dBFS.
  public static let silenceThreshold: Int16 = 32

  /// Reads and decodes the sound file at `path`.
  public static func load(path: String) throws(SoundFileError) -> PCMSound {
    // Its own EINTR retry and close rather than PuckSystem's funnel and `FileDescriptor`: this
    // file compiles without PuckSystem (see the note at the top).
    var fd: Int32
    repeat { fd = Glibc.open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
    guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
    defer { _ = Glibc.close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0 else {
      throw .unreadable(path: path, reason: String(cString: strerror(errno)))
    }
    guard status.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile(path: path) }
    return try decode(VirtualFile(descriptor: fd, length: Int64(status.st_size)), path: path)
  }

  /// Decodes a sound file's contents held in memory; `path` only names it in errors (the fuzz
  /// target's way in).
  public static func decode(bytes: [UInt8], path: String) throws(SoundFileError) -> PCMSound {
    try decode(VirtualFile(bytes: bytes), path: path)
  }

  /// libsndfile keeps the error of a failed open in one global; opens are serialised so the
  /// text read back is this open's.
  private static let openLock = Mutex(())

  /// Decodes through libsndfile's virtual I/O, so libsndfile never holds the descriptor (1.2.0
  /// closes one given to `sf_open_fd` when the open fails, whatever it was told).
  private static func decode(_ source: VirtualFile, path: String) throws(SoundFileError) -> PCMSound {
    var info = SF_INFO()
    var handle: OpaquePointer?
    let failure: SoundFileError? = openLock.withLock { _ in
      var io = VirtualFile.callbacks
      handle = sf_open_virtual(&io, Int32(SFM_READ), &info, Unmanaged.passUnretained(source).toOpaque())
      guard handle == nil else { return nil }
      let code = Int(sf_error(nil))
      var reason = String(cString: sf_strerror(nil))
      if let failure = source.failure { return .unreadable(path: path, reason: failure) }
      // libsndfile's text for a stream it gave up on (an MP3 fragment, say) blames the file
      // system; the file was checked to be a regular one above.
      if reason.contains("not a regular file") { reason = "the decoder found no complete audio in it" }
      switch code {
      case SF_ERR_UNRECOGNISED_FORMAT, SF_ERR_UNSUPPORTED_ENCODING:
        return .unsupportedFormat(path: path, reason: reason)
      default:
        return .corrupt(path: path, reason: reason)
      }
    }
    if let failure { throw failure }
    guard let file = handle else { throw .corrupt(path: path, reason: "libsndfile gave no reason") }
    defer { sf_close(file) }

    let rate = Int(info.samplerate)
    let channels = Int(info.channels)
    guard PCMSound.sampleRates.contains(rate) else {
      throw .unsupportedSampleRate(path: path, rate: rate)
    }
    guard channels > 0 else { throw .corrupt(path: path, reason: "it has no channel") }
    let outputChannels = channels <= 2 ? channels : 1

    // The frame limit is whichever of the two limits comes first at this rate.
    let durationFrames = PCMSound.frames(in: maximumDuration, sampleRate: rate)
    let memoryFrames = maximumDecodedBytes / MemoryLayout<Int16>.size / outputChannels
    let limitFrames = min(durationFrames, memoryFrames)
    let limitError: SoundFileError =
      durationFrames <= memoryFrames
      ? .tooLong(path: path, limit: maximumDuration)
      : .tooLarge(path: path, limitBytes: maximumDecodedBytes)
    // The frame count libsndfile reports: exact for WAV, AIFF, FLAC, Ogg Vorbis and Opus; for
    // MP3 an estimate from the bit rate unless the file has a Xing/LAME header; Int64.max when
    // unknown, which for an Ogg file on disk means its last page is missing.
    let container = Int(info.format) & SF_FORMAT_TYPEMASK
    let exactLength = container != SF_FORMAT_MPEG && info.frames > 0 && info.frames != Int64.max
    if container == SF_FORMAT_OGG && info.frames == Int64.max {
      throw .corrupt(path: path, reason: "the end of the Ogg stream is missing")
    }
    // A length over the limit is refused before anything is decoded; the decoding below is
    // what bounds the memory whatever the header says.
    if exactLength && info.frames > Int64(limitFrames) { throw limitError }

    // Floats, normalised to [-1, 1) for integer encodings and as stored for float ones, then
    // reduced to 16 bits here (libsndfile does not scale float files read as shorts).
    _ = sf_command(file, Int32(SFC_SET_NORM_FLOAT), nil, Int32(SF_TRUE))
    let chunkFrames = max(1, 16_384 / channels)
    var buffer = [Float](repeating: 0, count: chunkFrames * channels)
    var samples: [Int16] = []
    // Only an exact length is worth reserving for: the array keeps its capacity for as long
    // as the sound is loaded.
    if exactLength { samples.reserveCapacity(Int(info.frames) * outputChannels) }
    var frames = 0
    var peak: Int16 = 0
    while true {
      let read = buffer.withUnsafeMutableBufferPointer { chunk in
        Int(sf_readf_float(file, chunk.baseAddress, Int64(chunkFrames)))
      }
      guard read > 0 else { break }
      guard frames + read <= limitFrames else { throw limitError }
      frames += read
      for frame in 0..<read {
        let base = frame * channels
        if outputChannels == channels {
          for channel in 0..<channels {
            let sample = int16(buffer[base + channel])
            samples.append(sample)
            peak = max(peak, sample == .min ? .max : abs(sample))
          }
        } else {
          var sum: Float = 0
          for channel in 0..<channels { sum += buffer[base + channel] }
          let sample = int16(sum / Float(channels))
          samples.append(sample)
          peak = max(peak, sample == .min ? .max : abs(sample))
        }
      }
    }
    if let failure = source.failure { throw .unreadable(path: path, reason: failure) }
    let error = sf_error(file)
    if error != 0 { throw .corrupt(path: path, reason: String(cString: sf_strerror(file))) }
    if exactLength && Int64(frames) < info.frames {
      throw .corrupt(path: path, reason: "only \(frames) of its \(info.frames) frames decode")
    }
    guard frames > 0 else { throw .noAudio(path: path) }
    guard peak > silenceThreshold else { throw .silent(path: path) }
    guard let sound = PCMSound(sampleRate: rate, channels: outputChannels, samples: samples) else {
      throw .noAudio(path: path)  // unreachable: rate, channels and frames were checked above
    }
    return sound
  }

  /// A normalised float sample as a 16-bit one: scaled by 32,768 (so 16-bit sources come back
  /// exactly), clipped, NaN as 0.
  static func int16(_ value: Float) -> Int16 {
    guard !value.isNaN else { return 0 }
    let scaled = (value * 32_768).rounded()
    if scaled <= -32_768 { return .min }
    if scaled >= 32_767 { return .max }
    return Int16(scaled)
  }

  /// "5 minutes", "90 seconds".
  static func minutes(_ duration: Duration) -> String {
    let seconds = duration.components.seconds
    return seconds % 60 == 0 ? "\(seconds / 60) minutes" : "\(seconds) seconds"
  }
}

/// The bytes libsndfile reads through its virtual I/O: a regular file read with `pread` (so the
/// descriptor's own offset and ownership stay the caller's), or bytes in memory.
private final class VirtualFile {
  private let descriptor: Int32?
  private let bytes: [UInt8]
  let length: Int64
  private(set) var position: Int64 = 0
  /// `strerror`'s text for the first failed read, if any.
  private(set) var failure: String?

  init(descriptor: Int32, length: Int64) {
    self.descriptor = descriptor
    self.bytes = []
    self.length = length
  }

  init(bytes: [UInt8]) {
    self.descriptor = nil
    self.bytes = bytes
    self.length = Int64(bytes.count)
  }

  /// The callbacks; `user_data` is an unretained `VirtualFile` that outlives the SNDFILE.
  static var callbacks: SF_VIRTUAL_IO {
    SF_VIRTUAL_IO(
      get_filelen: { virtualFile($0).length },
      seek: { offset, whence, context in virtualFile(context).seek(offset, whence) },
      read: { buffer, count, context in virtualFile(context).read(into: buffer, count: count) },
      write: { _, _, _ in 0 },
      tell: { virtualFile($0).position })
  }

  /// Moves the position; refuses (-1) to go before the start.
  fileprivate func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
    let base: Int64
    switch whence {
    case SEEK_SET: base = 0
    case SEEK_CUR: base = position
    case SEEK_END: base = length
    default: return -1
    }
    let (target, overflow) = base.addingReportingOverflow(offset)
    guard !overflow, target >= 0 else { return -1 }
    position = target
    return position
  }

  /// Up to `count` bytes at the position; 0 at the end or after a failure.
  fileprivate func read(into buffer: UnsafeMutableRawPointer?, count: Int64) -> Int64 {
    guard let buffer, count > 0, position < length, failure == nil else { return 0 }
    let wanted = Int(min(count, length - position))
    var done = 0
    if let descriptor {
      // A read loop of its own, not PuckSystem's funnel: see the note at the top of the file.
      while done < wanted {
        let got = pread(descriptor, buffer + done, wanted - done, off_t(position) + off_t(done))
        if got > 0 {
          done += got
        } else if got == 0 {
          break  // the file shrank
        } else if errno != EINTR {
          failure = String(cString: strerror(errno))
          break
        }
      }
    } else {
      bytes.withUnsafeBytes { source in
        buffer.copyMemory(from: source.baseAddress! + Int(position), byteCount: wanted)
      }
      done = wanted
    }
    position += Int64(done)
    return Int64(done)
  }
}

/// The `VirtualFile` behind libsndfile's `user_data`.
private func virtualFile(_ context: UnsafeMutableRawPointer?) -> VirtualFile {
  guard let context else { preconditionFailure("libsndfile passed no user data") }
  return Unmanaged<VirtualFile>.fromOpaque(context).takeUnretainedValue()
}
