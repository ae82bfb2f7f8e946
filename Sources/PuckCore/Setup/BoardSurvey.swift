/// The first step of `puckctl setup`: which board this is, which serial port is the dock's
/// reader UART on it, and what its boot configuration still lacks for a reader on the UART,
/// I²C or SPI (docs/DESIGN.md §8, hardware/README.md). Pure: `puckctl` reads the files and
/// hands their text in; nothing here reads the machine or changes it, and the boot files are
/// never changed by the assistant, only named with the command that changes them.
///
/// The rules are Raspberry Pi's own, as `raspi-config` applies them (its `get_serial_hw`,
/// `get_serial_cons`, `get_i2c` and `get_spi`): the UART is on with `enable_uart=1` (Pi 3, 4,
/// Zero 2 W) or `dtparam=uart0` (Pi 5, whose `serial0` is the debug connector, `ttyAMA10`, and
/// whose GPIO 14/15 UART is `ttyAMA0`); a serial console is a `console=` on the kernel command
/// line naming `serial0`, `ttyAMA0` or `ttyS0`.
public struct BoardSurvey: Hashable, Sendable, Codable {
  /// The boards the assistant knows.
  public enum Board: String, Hashable, Sendable, Codable {
    case pi3 = "Raspberry Pi 3"
    case pi4 = "Raspberry Pi 4"
    case pi5 = "Raspberry Pi 5"
    case zero2W = "Raspberry Pi Zero 2 W"
    /// Anything else: the reader's connstring is the builder's to name.
    case other

    /// The board a device-tree model string names (`Raspberry Pi 4 Model B Rev 1.4`). The
    /// Compute Modules and the Pi 400 count as the board their chip is on.
    public init(model: String) {
      if model.contains("Zero 2 W") {
        self = .zero2W
      } else if model.contains("Raspberry Pi 5") || model.contains("Compute Module 5")
        || model.contains("Raspberry Pi 500")
      {
        self = .pi5
      } else if model.contains("Raspberry Pi 4") || model.contains("Compute Module 4")
        || model.contains("Raspberry Pi 400")
      {
        self = .pi4
      } else if model.contains("Raspberry Pi 3") || model.contains("Compute Module 3") {
        self = .pi3
      } else {
        self = .other
      }
    }

    /// The `config.txt` conditional sections that apply to it (Raspberry Pi's "Conditional
    /// filters"); the Compute Modules and the 400/500 have filters of their own, not read here.
    var configFilters: [String] {
      switch self {
      case .pi3: return ["[pi3]"]
      case .pi4: return ["[pi4]"]
      case .pi5: return ["[pi5]"]
      case .zero2W: return ["[pi02]"]
      case .other: return []
      }
    }

    /// The serial port on GPIO 14/15 (pins 8 and 10), where the pin map puts the PN532, as
    /// the dock opens it; nil for a board the assistant does not know.
    public var readerUART: String? {
      switch self {
      case .pi3, .pi4, .zero2W: return "/dev/serial0"
      case .pi5: return "/dev/ttyAMA0"
      case .other: return nil
      }
    }
  }

  /// What the assistant reads, as text; nil where a file is missing.
  public struct Facts: Hashable, Sendable {
    /// `/proc/device-tree/model`, its trailing NUL included or not.
    public var model: String?
    /// The firmware's `config.txt` (`/boot/firmware/config.txt`, before Debian 12 `/boot/config.txt`).
    public var configText: String?
    /// Where `configText` came from, to name it in advice.
    public var configPath: String
    /// The kernel command line the firmware passes (`cmdline.txt` beside `config.txt`).
    public var commandLine: String?
    /// Where the `/dev/serial0` link points (`ttyS0`, `ttyAMA0`, `ttyAMA10`); nil without it.
    public var serial0Target: String?
    /// Which of `/dev/ttyAMA0`, `/dev/serial0`, `/dev/i2c-1` and `/dev/spidev0.0` exist.
    public var devices: Set<String>
    /// `/etc/os-release`, for the release the board runs.
    public var osRelease: String?

    public init(
      model: String?, configText: String?, configPath: String = "/boot/firmware/config.txt",
      commandLine: String?, serial0Target: String?, devices: Set<String>, osRelease: String? = nil
    ) {
      self.osRelease = osRelease
      self.model = model
      self.configText = configText
      self.configPath = configPath
      self.commandLine = commandLine
      self.serial0Target = serial0Target
      self.devices = devices
    }
  }

  /// One thing the survey checked.
  public struct Finding: Hashable, Sendable, Codable {
    /// `uart`, `serial-console`, `uart-kind`, `i2c`, `spi`.
    public var name: String
    /// Whether it is as a reader there needs it. A bus no reader is wired to need not be on:
    /// I²C and SPI are not counted against the board (`needed` is false for them).
    public var ok: Bool
    /// Whether a reader on the GPIO UART (the pin map's wiring) needs this to be ok.
    public var needed: Bool
    /// What was found, in words.
    public var detail: String
    /// The command or `config.txt` line that changes it, when it is not ok.
    public var fix: String?
  }

  /// The model as the device tree names it, or "unknown".
  public var model: String
  public var board: Board
  /// The release the board runs, as `/etc/os-release` names it (`PRETTY_NAME`); nil without it.
  public var release: String?
  /// The GPIO UART the dock's reader uses on this board (`--reader` / `[reader] device` take
  /// `pn532_uart:` and this path).
  public var readerUART: String?
  public var findings: [Finding]
  /// The libnfc connstrings worth probing on this board, one at a time, most likely first: the
  /// GPIO UART when it is on, I²C bus 1 and SPI 0.0 when their devices exist, then an ACR122U
  /// on USB. Never a scan of every port (libnfc's `allow_intrusive_scan`).
  public var readerCandidates: [String]

  /// Whether the board is ready for a reader on its GPIO UART: every needed finding is ok.
  public var uartReady: Bool

  public init(_ facts: Facts) {
    let model = (facts.model ?? "").replacing("\u{0}", with: "").trimmingWhitespace()
    self.model = model.isEmpty ? "unknown" : model
    board = Board(model: model)
    readerUART = board.readerUART
    let config = BootConfig(facts.configText ?? "", board: board)
    var findings: [Finding] = []
    release = facts.osRelease.flatMap { Self.osReleaseValue("PRETTY_NAME", in: $0) }
    if let text = facts.osRelease {
      // The package is built for Debian 12 and 13, which Raspberry Pi OS has followed since 2023.
      let version = Self.osReleaseValue("VERSION_ID", in: text).flatMap { Int($0) }
      let supported = (version ?? 0) >= 12
      findings.append(
        Finding(
          name: "release", ok: supported, needed: false,
          detail: release ?? Self.osReleaseValue("ID", in: text) ?? "an unnamed release",
          fix: supported
            ? nil
            : "the package is built for Debian 12 (bookworm) and 13 (trixie): Raspberry Pi OS (64-bit) "
              + "of 2023 or later; on an older release, build from source with a Swift 6 toolchain"))
    }
    var candidates: [String] = []
    if let uart = readerUART {
      let uartOn: Bool
      if board == .pi5 {
        uartOn = config.has("dtparam", "uart0") || config.has("dtoverlay", "uart0-pi5")
      } else {
        uartOn = config.value(of: "enable_uart").map { $0 == "1" } ?? facts.devices.contains("/dev/serial0")
      }
      findings.append(
        Finding(
          name: "uart", ok: uartOn, needed: true,
          detail: uartOn
            ? "the GPIO 14/15 UART is on (\(uart))"
            : "the GPIO 14/15 UART is off (\(board == .pi5 ? "no dtparam=uart0" : "no enable_uart=1") in \(facts.configPath))",
          fix: uartOn ? nil : "sudo raspi-config nonint do_serial_hw 0   (then reboot)"))
      // On a Pi 5 `serial0` is the debug connector: a console there leaves GPIO 14/15 alone.
      let consoles = board == .pi5 ? ["ttyAMA0"] : ["serial0", "ttyAMA0", "ttyS0"]
      let console = facts.commandLine.flatMap { line in
        line.split(separator: " ").first { word in
          word.hasPrefix("console=")
            && consoles.contains { word.dropFirst(8).hasPrefix($0 + ",") || word.dropFirst(8) == $0 }
        }
      }
      findings.append(
        Finding(
          name: "serial-console", ok: console == nil, needed: true,
          detail: console.map { "a login console is on the reader's UART (\($0) on the kernel command line)" }
            ?? "no login console on the reader's UART",
          fix: console == nil ? nil : "sudo raspi-config nonint do_serial_cons 1   (then reboot)"))
      if board != .pi5, let target = facts.serial0Target {
        // With Bluetooth on, serial0 is the mini UART, whose speed follows the core clock.
        let mini = target.hasSuffix("ttyS0")
        findings.append(
          Finding(
            name: "uart-kind", ok: !mini, needed: false,
            detail: mini
              ? "serial0 is the mini UART (ttyS0); Bluetooth holds the PL011"
              : "serial0 is the PL011 (\(target.split(separator: "/").last.map(String.init) ?? target))",
            fix: mini
              ? "for a steadier PN532 link, give it the PL011: add dtoverlay=disable-bt to \(facts.configPath) "
                + "(Bluetooth off; see hardware/README.md)" : nil))
      }
      if uartOn { candidates.append("pn532_uart:" + uart) }
    }
    // The buses a reader may sit on besides the UART: on in config.txt, or their device there.
    let buses = [
      (
        name: "i2c", title: "I²C", bus: "I²C bus 1", device: "/dev/i2c-1", driver: "pn532_i2c",
        raspi: "do_i2c",
        on: config.has("dtparam", "i2c_arm") || config.has("dtparam", "i2c")
      ),
      (
        name: "spi", title: "SPI", bus: "SPI 0", device: "/dev/spidev0.0", driver: "pn532_spi",
        raspi: "do_spi",
        on: config.has("dtparam", "spi")
      ),
    ]
    for bus in buses {
      let present = facts.devices.contains(bus.device)
      findings.append(
        Finding(
          name: bus.name, ok: bus.on || present, needed: false,
          detail: present
            ? "\(bus.bus) is on (\(bus.device))"
            : bus.on ? "\(bus.title) is on in \(facts.configPath)" : "\(bus.title) is off",
          fix: bus.on || present
            ? nil : "only for a reader on \(bus.title): sudo raspi-config nonint \(bus.raspi) 0"))
    }
    for bus in buses where facts.devices.contains(bus.device) {
      candidates.append("\(bus.driver):\(bus.device)")
    }
    candidates.append("acr122_usb")
    self.findings = findings
    uartReady = readerUART != nil && findings.allSatisfy { $0.ok || !$0.needed }
    readerCandidates = candidates
  }
}

extension BoardSurvey {
  /// A value of `/etc/os-release` (`PRETTY_NAME="Debian GNU/Linux 13 (trixie)"`), its quotes
  /// removed; nil when the key is not there.
  static func osReleaseValue(_ key: String, in text: String) -> String? {
    for raw in text.split(whereSeparator: \.isNewline) where raw.hasPrefix(key + "=") {
      var value = String(raw.dropFirst(key.count + 1)).trimmingWhitespace()
      if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
        value = String(value.dropFirst().dropLast())
      }
      return value.isEmpty ? nil : value
    }
    return nil
  }
}

/// The `key=value` lines of a `config.txt` that apply to this board: those at the top, under
/// `[all]` and under the board's own filters (`[pi4]`, `[pi02]`, …); comments and lines under
/// other conditional sections (`[cm4]`, `[gpio4=1]`, `[none]`) are skipped. `dtparam=a=on,b`
/// sets several parameters in one line.
struct BootConfig {
  private var lines: [(key: String, value: String)] = []

  init(_ text: String, board: BoardSurvey.Board) {
    var applies = true
    for raw in text.split(whereSeparator: \.isNewline) {
      let line = String(raw).trimmingWhitespace()
      if line.isEmpty || line.hasPrefix("#") { continue }
      if line.hasPrefix("[") {
        applies = line == "[all]" || board.configFilters.contains(line)
        continue
      }
      guard applies, let equals = line.firstIndex(of: "=") else { continue }
      lines.append(
        (
          String(line[..<equals]).trimmingWhitespace(),
          String(line[line.index(after: equals)...]).trimmingWhitespace()
        ))
    }
  }

  /// The last value given to `key` (`enable_uart`), as the firmware takes the last.
  func value(of key: String) -> String? {
    lines.last { $0.key == key }?.value
  }

  /// Whether `key` (`dtparam`) turns `parameter` on, the last mention winning: `uart0`,
  /// `uart0=on` and `uart0=1` are on, `uart0=off` is off.
  func has(_ key: String, _ parameter: String) -> Bool {
    var on = false
    for line in lines where line.key == key || (key == "dtparam" && line.key == "device_tree_param") {
      for item in line.value.split(separator: ",") {
        let parts = item.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace() }
        guard parts.first == parameter else { continue }
        on = parts.count == 1 || ["on", "true", "yes", "1"].contains(parts[1])
      }
    }
    return on
  }
}
