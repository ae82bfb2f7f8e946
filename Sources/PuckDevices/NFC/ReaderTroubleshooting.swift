import Glibc

/// What to tell the person at 6 a.m. when the reader fails: the likely causes for the kind of
/// reader the connection string names, checked against the system where that is cheap.
enum ReaderTroubleshooting {
  /// Why opening `connstring` (nil: libnfc's default device) probably failed and what to do.
  static func openFailure(_ connstring: String?) -> String {
    guard let connstring else {
      // libnfc's scan without allow_intrusive_scan (off in Debian, and it must stay off on a Pi:
      // it would probe every serial port, the Bluetooth UART included) finds USB readers only.
      return "no reader found: [reader] device = auto finds USB readers (and a reader named in "
        + "/etc/nfc/libnfc.conf or /etc/nfc/devices.d), never a PN532 on UART, I2C or SPI: name it "
        + "in [reader] device (pn532_uart:/dev/serial0, or pn532_uart:/dev/ttyAMA0 on a Pi 5; "
        + "pn532_i2c:/dev/i2c-1; sudo puckctl setup finds it); for a USB reader, " + usbAdvice
    }
    if let path = serialPath(connstring) {
      if access(path, F_OK) != 0 {
        return "\(path) does not exist: check the connection string, that the USB serial adapter "
          + "is plugged in, or on a Raspberry Pi that the UART is enabled (raspi-config → Interface "
          + "Options → Serial Port: login shell no, hardware yes)"
      }
      if access(path, R_OK | W_OK) != 0 {
        return "no permission on \(path): add the daemon's user to the dialout group "
          + "(or install the udev rule) and restart it"
      }
      return "no PN532 answered on \(path): check the wiring (TX to RX, RX to TX, 3.3 V, GND), "
        + "that the board's interface switches select HSU/UART, and that no serial console "
        + "or getty uses the port (console=serial0 in cmdline.txt, serial-getty@)"
    }
    if connstring.hasPrefix("acr122_usb") || connstring.hasPrefix("pn53x_usb") || connstring.hasPrefix("usb")
    {
      return "no USB reader answered: " + usbAdvice
    }
    if connstring.hasPrefix("pn532_i2c") || connstring.hasPrefix("pn532_spi") {
      return "no PN532 answered on \(connstring): check the wiring, that I2C/SPI is enabled "
        + "(raspi-config → Interface Options), the board's interface switches, and that the "
        + "daemon's user may open the bus (i2c or spi group)"
    }
    return "no reader answered at \(connstring): check the connection string "
      + "(pn532_uart:/dev/serial0, or pn532_uart:/dev/ttyAMA0 on a Pi 5; acr122_usb, pn532_i2c:/dev/i2c-1)"
  }

  /// What to check when an open reader stops answering mid-use.
  static func lostReader(_ connstring: String) -> String {
    if serialPath(connstring) != nil {
      return "check the PN532's power and wiring, and that no serial console or other program "
        + "(another libnfc tool, ModemManager) uses the port"
    }
    if connstring.hasPrefix("acr122_usb") || connstring.hasPrefix("pn53x_usb") {
      return "check the USB cable and power (a long cable or a weak hub resets the reader); "
        + usbAdvice
    }
    return "check the reader's power and wiring"
  }

  private static let usbAdvice =
    "is it plugged in (lsusb)? The kernel's pn533_usb driver may hold it — Debian's libnfc "
    + "package blacklists it, but if it is loaded run `sudo modprobe -r pn533_usb pn533`; "
    + "pcscd may hold it — `sudo systemctl stop pcscd.socket pcscd` (and disable them)"

  /// The serial device of a `pn532_uart:/dev/ttyS0[:115200]` connection string.
  private static func serialPath(_ connstring: String) -> String? {
    let prefix = "pn532_uart:"
    guard connstring.hasPrefix(prefix) else { return nil }
    let rest = connstring.dropFirst(prefix.count)
    let path = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? rest
    return path.isEmpty ? nil : String(path)
  }
}
