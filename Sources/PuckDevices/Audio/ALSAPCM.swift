import CALSA
import Glibc
import PuckSystem

/// The one owner of an alsa-lib playback PCM: opens it, configures it for interleaved S16_LE,
/// writes frames, recovers underruns, drops and closes it. Every ALSA call goes through
/// `ALSAError.check(_:_:)`, which turns a negative return into an `ALSAError`; the raw handles never leave
/// this type and are freed in `close()` only.
///
/// Not `Sendable`: a PCM is used by one thread (the ringer's playback thread).
final class ALSAPCM {
  /// Whether writes wait for room in the device buffer or return at once.
  enum Mode {
    /// `snd_pcm_writei` waits for room.
    case blocking
    /// `snd_pcm_writei` returns what fitted (0 when full); wait with `pollDescriptors()`.
    case nonblocking
  }

  /// The device this PCM was opened on.
  let device: ALSADevice
  /// Samples per frame, once `configure` succeeded.
  private(set) var channels = 0
  /// Frames per second, once `configure` succeeded.
  private(set) var sampleRate = 0

  private var pcm: OpaquePointer?
  /// The inline configuration `pcm` was opened from; alsa-lib may refer to it until close.
  private var localConfiguration: OpaquePointer?

  /// Opens `device` for playback: `snd_pcm_open`, or for a device with configuration text,
  /// `snd_config_top` + `snd_input_buffer_open` + `snd_config_load` + `snd_pcm_open_lconf`.
  init(device: ALSADevice, mode: Mode) throws(ALSAError) {
    self.device = device
    let flags: Int32 = mode == .nonblocking ? SND_PCM_NONBLOCK : 0
    var handle: OpaquePointer?
    if let text = device.configuration {
      localConfiguration = try Self.loadConfiguration(text)
      try ALSAError.check("snd_pcm_open_lconf") {
        snd_pcm_open_lconf(&handle, device.name, SND_PCM_STREAM_PLAYBACK, flags, localConfiguration)
      }
    } else {
      try ALSAError.check("snd_pcm_open") {
        snd_pcm_open(&handle, device.name, SND_PCM_STREAM_PLAYBACK, flags)
      }
    }
    pcm = handle
  }

  deinit { close() }

  /// Sets interleaved S16_LE with `channels` and `sampleRate`, letting alsa-lib resample, and
  /// a buffer of about `latency`: `snd_pcm_set_params`.
  func configure(channels: Int, sampleRate: Int, latency: Duration) throws(ALSAError) {
    let handle = try open("snd_pcm_set_params")
    let microseconds = UInt32(clamping: latency.roundedUpMicroseconds)
    try ALSAError.check("snd_pcm_set_params") {
      snd_pcm_set_params(
        handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
        UInt32(clamping: channels), UInt32(clamping: sampleRate), 1, microseconds)
    }
    self.channels = channels
    self.sampleRate = sampleRate
  }

  /// Writes whole interleaved frames from `samples` (`snd_pcm_writei`) and returns how many
  /// frames the device took: 0 when a nonblocking PCM's buffer is full.
  func write(_ samples: UnsafeBufferPointer<Int16>) throws(ALSAError) -> Int {
    let handle = try open("snd_pcm_writei")
    precondition(channels > 0, "configure before write")
    let frames = samples.count / channels
    guard frames > 0, let base = samples.baseAddress else { return 0 }
    do {
      return try ALSAError.check("snd_pcm_writei") { snd_pcm_writei(handle, base, UInt(frames)) }
    } catch  where error.code == -EAGAIN {
      return 0
    }
  }

  /// Brings the stream back after an underrun, a suspend or an interrupted call
  /// (`snd_pcm_recover`, silently); throws when the error is not one it can recover.
  func recover(from error: ALSAError) throws(ALSAError) {
    let handle = try open("snd_pcm_recover")
    try ALSAError.check("snd_pcm_recover") { snd_pcm_recover(handle, error.code, 1) }
  }

  /// Stops the stream now, discarding what is still buffered: `snd_pcm_drop`.
  func drop() throws(ALSAError) {
    let handle = try open("snd_pcm_drop")
    try ALSAError.check("snd_pcm_drop") { snd_pcm_drop(handle) }
  }

  /// Plays out what is buffered, then stops (`snd_pcm_drain`); on a nonblocking PCM the stream
  /// is switched to blocking first (`snd_pcm_nonblock`), so this waits up to the latency.
  func drain() throws(ALSAError) {
    let handle = try open("snd_pcm_drain")
    try ALSAError.check("snd_pcm_nonblock") { snd_pcm_nonblock(handle, 0) }
    try ALSAError.check("snd_pcm_drain") { snd_pcm_drain(handle) }
  }

  /// The descriptors to `poll` for room in the buffer: `snd_pcm_poll_descriptors`.
  func pollDescriptors() throws(ALSAError) -> [pollfd] {
    let handle = try open("snd_pcm_poll_descriptors")
    let count = try ALSAError.check("snd_pcm_poll_descriptors_count") {
      snd_pcm_poll_descriptors_count(handle)
    }
    var descriptors = [pollfd](repeating: pollfd(), count: Int(count))
    let filled = try ALSAError.check("snd_pcm_poll_descriptors") {
      snd_pcm_poll_descriptors(handle, &descriptors, UInt32(count))
    }
    return Array(descriptors.prefix(Int(filled)))
  }

  /// After `poll` returned on `descriptors`, whether the PCM can take frames or has an error
  /// to report through the next write: `snd_pcm_poll_descriptors_revents`.
  func isWritable(after descriptors: inout [pollfd]) throws(ALSAError) -> Bool {
    let handle = try open("snd_pcm_poll_descriptors_revents")
    var events: UInt16 = 0
    try ALSAError.check("snd_pcm_poll_descriptors_revents") {
      snd_pcm_poll_descriptors_revents(handle, &descriptors, UInt32(descriptors.count), &events)
    }
    return events & UInt16(POLLOUT | POLLERR) != 0
  }

  /// Closes the PCM (`snd_pcm_close`) and frees the inline configuration
  /// (`snd_config_delete`). The only place either is freed; safe to call twice.
  func close() {
    if let pcm {
      _ = snd_pcm_close(pcm)
      self.pcm = nil
    }
    if let localConfiguration {
      _ = snd_config_delete(localConfiguration)
      self.localConfiguration = nil
    }
  }

  /// The open handle, or `-EBADFD` from `function` when the PCM was closed.
  fileprivate func open(_ function: String) throws(ALSAError) -> OpaquePointer {
    guard let pcm else { throw ALSAError(code: -EBADFD, function: function) }
    return pcm
  }

  /// Parses ALSA configuration text into a new top-level node the caller owns (frees with
  /// `snd_config_delete`).
  static func loadConfiguration(_ text: String) throws(ALSAError) -> OpaquePointer? {
    var top: OpaquePointer?
    try ALSAError.check("snd_config_top") { snd_config_top(&top) }
    var input: OpaquePointer?
    do {
      // snd_input_buffer_open copies the bytes, so the temporary C string may go.
      try ALSAError.check("snd_input_buffer_open") {
        text.withCString { snd_input_buffer_open(&input, $0, strlen($0)) }
      }
      defer { _ = snd_input_close(input) }
      try ALSAError.check("snd_config_load") { snd_config_load(top, input) }
    } catch {
      _ = snd_config_delete(top)
      throw error
    }
    return top
  }
}

extension ALSAPCM {
  /// The number of the sound card the PCM plays on (`snd_pcm_info`, `snd_pcm_info_get_card`);
  /// nil for a PCM on no card (`null`, `file`, a sound server) or a closed one.
  func card() -> Int32? {
    guard let handle = try? open("snd_pcm_info") else { return nil }
    var info: OpaquePointer?
    guard (try? ALSAError.check("snd_pcm_info_malloc", { snd_pcm_info_malloc(&info) })) != nil, let info
    else {
      return nil
    }
    defer { snd_pcm_info_free(info) }
    guard (try? ALSAError.check("snd_pcm_info", { snd_pcm_info(handle, info) })) != nil else { return nil }
    let card = snd_pcm_info_get_card(info)
    return card >= 0 ? card : nil
  }
}
