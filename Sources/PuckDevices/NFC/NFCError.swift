import CNFC

/// A failed libnfc call: the negative code it returned (`NFC_EIO`, `NFC_ETIMEOUT`, …), the C
/// function's name and libnfc's text for the code (`nfc_strerror`).
public struct NFCError: Error, Sendable, Hashable, CustomStringConvertible {
  /// libnfc's negative error code.
  public let code: Int32
  /// The libnfc function that failed, e.g. `nfc_initiator_select_passive_target`.
  public let function: String
  /// libnfc's text for the code, e.g. "Input / Output Error", or what went wrong when libnfc
  /// gives no code (`nfc_open` only returns NULL).
  public let message: String

  /// `nfc_initiator_select_passive_target: Timeout (-6)`.
  public var description: String {
    "\(function): \(message) (\(code))"
  }

  /// The chip did not answer within libnfc's timeout (`NFC_ETIMEOUT`): a single one can be a
  /// glitch, several in a row mean the reader stopped answering.
  public var isTimeout: Bool { code == NFC_ETIMEOUT }

  /// The radio exchange with a tag failed (`NFC_ERFTRANS`): the tag moved away mid-read. Says
  /// nothing about the reader's health.
  public var isRadioError: Bool { code == NFC_ERFTRANS }

  /// libnfc's wording for a code, for when the device's last error does not carry it.
  static func text(for code: Int32) -> String {
    switch code {
    case NFC_EIO: return "Input / Output Error"
    case NFC_EINVARG: return "Invalid argument(s)"
    case NFC_EDEVNOTSUPP: return "Not Supported by Device"
    case NFC_ENOTSUCHDEV: return "No Such Device"
    case NFC_EOVFLOW: return "Buffer Overflow"
    case NFC_ETIMEOUT: return "Timeout"
    case NFC_EOPABORTED: return "Operation Aborted"
    case NFC_ENOTIMPL: return "Not (yet) Implemented"
    case NFC_ETGRELEASED: return "Target Released"
    case NFC_EMFCAUTHFAIL: return "Mifare Authentication Failed"
    case NFC_ERFTRANS: return "RF Transmission Error"
    case NFC_ECHIP: return "Device's Internal Chip Error"
    default: return "libnfc error"
    }
  }
}
