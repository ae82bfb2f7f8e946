import CNFC
import Synchronization

/// The one owner of libnfc's handles: an `nfc_context*` and the `nfc_device*` opened in it.
/// Neither pointer leaves this type; every libnfc call goes through `check`, which turns a
/// negative return into an `NFCError` carrying the code, the function and `nfc_strerror`.
///
/// An instance is an open reader: `init` opens it, `deinit` closes it (`nfc_close`, which also
/// releases the target and switches the field off) and frees the context (`nfc_exit`). To
/// reconnect, drop the instance and make a new one.
///
/// Not `Sendable`: libnfc's device calls are not thread-safe, so one thread uses an instance
/// (`NFCTagReader`'s poll thread).
///
/// Every call that can talk to the chip is bounded by libnfc's own timeouts (350 ms per
/// command, 300 ms for a select, 500 ms + 1 s at open), as long as infinite select stays off.
/// `nfc_initiator_poll_target` is deliberately not wrapped: on a PN532 it runs InAutoPoll with
/// no timeout and blocks forever if the chip stops answering (`nfc_abort_command` cannot
/// interrupt that wait).
public final class NFCDevice {
  private let context: OpaquePointer
  private let device: OpaquePointer

  /// The connection string libnfc opened, e.g. `pn532_uart:/dev/serial0` (`nfc_device_get_connstring`).
  public let connstring: String
  /// The device's name (`nfc_device_get_name`), e.g. `pn532_uart:/dev/serial0` or
  /// `ACS / ACR122U PICC Interface`.
  public let name: String
  /// The chip and firmware, e.g. `PN532 v1.6`, from the first line of
  /// `nfc_device_get_information_about`; nil when libnfc does not say.
  public let chip: String?

  /// libnfc keeps its driver list in a process-wide global that `nfc_init` fills and
  /// `nfc_exit` frees, with no locking, and `nfc_open` walks it. Holding this lock around those
  /// three calls lets several contexts live in one process (the daemon's reader, tests running
  /// in parallel) without one freeing the list under another.
  private static let libraryLock = Mutex(())

  /// Opens a reader: `nfc_init`, then `nfc_open` with `connstring` (`pn532_uart:/dev/serial0`,
  /// `acr122_usb`, …; nil for libnfc's default device, the first `nfc_list_devices` finds).
  ///
  /// libnfc reads `LIBNFC_DEVICE`, `LIBNFC_AUTO_SCAN`, `LIBNFC_INTRUSIVE_SCAN` and
  /// `LIBNFC_LOG_LEVEL` from the environment and `/etc/nfc/libnfc.conf` here, in `nfc_init`.
  public init(connstring: String?) throws(NFCError) {
    let opened = Self.libraryLock.withLock { _ -> Result<(OpaquePointer, OpaquePointer), NFCError> in
      var context: OpaquePointer?
      nfc_init(&context)
      guard let context else {
        return .failure(NFCError(code: NFC_ESOFT, function: "nfc_init", message: "out of memory"))
      }
      let device: OpaquePointer?
      if let connstring {
        device = nfc_open(context, connstring)
      } else {
        device = nfc_open(context, nil)
      }
      guard let device else {
        nfc_exit(context)
        let target = connstring ?? "libnfc's default device"
        return .failure(
          NFCError(code: NFC_ENOTSUCHDEV, function: "nfc_open", message: "no reader answered at \(target)"))
      }
      return .success((context, device))
    }
    switch opened {
    case .success(let (context, device)):
      self.context = context
      self.device = device
    case .failure(let error):
      throw error
    }
    self.connstring = nfc_device_get_connstring(device).map { String(cString: $0) } ?? connstring ?? ""
    name = nfc_device_get_name(device).map { String(cString: $0) } ?? ""
    chip = Self.chip(of: device)
  }

  deinit {
    nfc_close(device)
    Self.libraryLock.withLock { _ in nfc_exit(context) }
  }

  /// Makes the reader an initiator with the field on (`nfc_initiator_init`), then turns
  /// infinite select off (`nfc_device_set_property_bool(NP_INFINITE_SELECT, false)`):
  /// `nfc_initiator_init` turns it on, and with it on a select waits until a tag comes.
  public func startInitiator() throws(NFCError) {
    try check("nfc_initiator_init", nfc_initiator_init(device))
    try check(
      "nfc_device_set_property_bool(NP_INFINITE_SELECT)",
      nfc_device_set_property_bool(device, NP_INFINITE_SELECT, false))
  }

  /// Looks once for an ISO 14443-A tag at 106 kbps and selects it
  /// (`nfc_initiator_select_passive_target`). Nil when none answered. Bounded (about 300 ms on
  /// a PN532) once `startInitiator` has turned infinite select off.
  public func selectISO14443A() throws(NFCError) -> ISO14443ATarget? {
    let modulation = nfc_modulation(nmt: NMT_ISO14443A, nbr: NBR_106)
    var target = nfc_target()
    let found = try check(
      "nfc_initiator_select_passive_target",
      nfc_initiator_select_passive_target(device, modulation, nil, 0, &target))
    guard found > 0 else { return nil }
    let info = target.nti.nai
    let length = min(Int(info.szUidLen), 10)
    let uid = withUnsafeBytes(of: info.abtUid) { Array($0.prefix(length)) }
    return ISO14443ATarget(
      uid: uid, atqa: UInt16(info.abtAtqa.0) << 8 | UInt16(info.abtAtqa.1), sak: info.btSak)
  }

  /// Releases any target, switches the RF field off and lets the chip sleep (`nfc_idle`:
  /// InRelease, RFConfiguration, PowerDown on a PN532).
  public func idle() throws(NFCError) {
    try check("nfc_idle", nfc_idle(device))
  }

  /// Switches the RF field on or off (`nfc_device_set_property_bool(NP_ACTIVATE_FIELD)`). A
  /// round trip to the chip, so switching it off doubles as a health probe while idle.
  public func setField(on: Bool) throws(NFCError) {
    try check(
      "nfc_device_set_property_bool(NP_ACTIVATE_FIELD)",
      nfc_device_set_property_bool(device, NP_ACTIVATE_FIELD, on))
  }

  /// libnfc's version string (`nfc_version`), e.g. `1.8.0`.
  public static var libraryVersion: String {
    nfc_version().map { String(cString: $0) } ?? "unknown"
  }

  /// Turns a libnfc return code into a value or an `NFCError` naming `function`, with
  /// `nfc_strerror`'s text when the device's last error is this code.
  @discardableResult
  private func check(_ function: String, _ result: Int32) throws(NFCError) -> Int32 {
    guard result < 0 else { return result }
    let message =
      nfc_device_get_last_error(device) == result
      ? nfc_strerror(device).map { String(cString: $0) } ?? NFCError.text(for: result)
      : NFCError.text(for: result)
    throw NFCError(code: result, function: function, message: message)
  }

  /// The `chip: PN532 v1.6` line of `nfc_device_get_information_about`, which formats what
  /// libnfc learned at open (GetFirmwareVersion) without talking to the chip.
  private static func chip(of device: OpaquePointer) -> String? {
    var buffer: UnsafeMutablePointer<CChar>?
    guard nfc_device_get_information_about(device, &buffer) >= 0, let buffer else { return nil }
    defer { nfc_free(buffer) }
    let text = String(cString: buffer)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("chip: ") }) else { return nil }
    return String(line.dropFirst("chip: ".count))
  }
}
