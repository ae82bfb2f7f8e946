import CALSA
import Glibc

/// A failed alsa-lib call: the negative code it returned, the C function's name, the
/// `snd_strerror` text, and the first diagnostic alsa-lib printed during the call, if any.
public struct ALSAError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The negative error code the call returned (`-errno` for system errors).
  public let code: Int32
  /// The alsa-lib function that failed, e.g. `snd_pcm_open`.
  public let function: String
  /// alsa-lib's own diagnostic for the call, e.g. "cannot find card '0'" (nil when it printed none).
  public var detail: String?

  /// `snd_strerror(code)`, e.g. "No such file or directory".
  public var message: String { String(cString: snd_strerror(code)) }

  /// One line for the log and for status.
  public var description: String {
    let base = "\(function): \(message) (\(code))"
    guard let detail, !detail.isEmpty else { return base }
    return "\(base): \(detail)"
  }

  /// The device underran, was suspended or the call was interrupted: `snd_pcm_recover` can
  /// bring the stream back without closing it.
  var isRecoverable: Bool {
    code == -EPIPE || code == -ESTRPIPE || code == -EINTR
  }

  /// Installs the diagnostic capture of the C shim once per process.
  private static let messageCapture: Int32 = puck_alsa_capture_messages()

  /// The one checking function every alsa-lib call goes through (`ALSAPCM`, `ALSAMixer`): runs
  /// the call and turns a negative result into an `ALSAError` with the function's name,
  /// `snd_strerror` text and alsa-lib's diagnostic.
  @discardableResult
  static func check<Code: BinaryInteger>(
    _ function: String, _ body: () -> Code
  ) throws(ALSAError) -> Code {
    _ = messageCapture
    puck_alsa_clear_message()
    let code = body()
    guard code < 0 else { return code }
    let detail = puck_alsa_message_text().map { String(cString: $0) }
    throw ALSAError(code: Int32(truncatingIfNeeded: code), function: function, detail: detail)
  }
}
