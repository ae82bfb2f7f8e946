import FoundationEssentials
import Glibc
import PuckCore
import PuckStorage

/// `puckctl setup`: the bring-up assistant's first step, the board (`BoardSurvey`). Reads the
/// device tree's model, the firmware's `config.txt` and `cmdline.txt`, where `/dev/serial0`
/// points and which bus devices exist, under `--root` (a card mounted elsewhere, or the
/// tests' fake board), and says what to change; it never changes a boot file itself.
enum SetupCommand {
  /// The bus devices the survey looks for.
  static let devices = ["/dev/serial0", "/dev/ttyAMA0", "/dev/i2c-1", "/dev/spidev0.0"]

  static func run(_ request: ControlRequest) throws -> ExitCode {
    let root = request.text(.root) ?? "/"
    let survey = BoardSurvey(try facts(under: root))
    if request.flag(.json) {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      print(String(decoding: try encoder.encode(survey), as: UTF8.self))
    } else {
      print(render(survey))
    }
    return survey.uartReady ? .success : .failure
  }

  /// The files, read under `root`; a missing one is nil (not a Raspberry Pi, or not this
  /// Debian's layout), an unreadable one an error that names it.
  static func facts(under root: String) throws -> BoardSurvey.Facts {
    func path(_ absolute: String) -> String {
      root == "/" ? absolute : root.trimmingSuffix("/") + absolute
    }
    func text(_ absolute: String) throws -> String? {
      try DurableFile.read(path(absolute)).map { String(decoding: $0, as: UTF8.self) }
    }
    // Debian 12 and later keep the firmware's files in /boot/firmware; older images in /boot.
    let firmware = access(path("/boot/firmware/config.txt"), F_OK) == 0 ? "/boot/firmware" : "/boot"
    var target = [CChar](repeating: 0, count: 256)
    let length = readlink(path("/dev/serial0"), &target, target.count - 1)
    return BoardSurvey.Facts(
      model: try text("/proc/device-tree/model"), configText: try text(firmware + "/config.txt"),
      configPath: firmware + "/config.txt", commandLine: try text(firmware + "/cmdline.txt"),
      serial0Target: length > 0
        ? String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil,
      devices: Set(devices.filter { access(path($0), F_OK) == 0 }))
  }

  /// The survey for a person: the board, each finding with its fix, then what comes next.
  static func render(_ survey: BoardSurvey) -> String {
    var lines = [
      "Board:        \(survey.model)" + (survey.board == .other ? "" : " (\(survey.board.rawValue))")
    ]
    guard let uart = survey.readerUART else {
      lines.append(
        "This is not a board the assistant knows. Name the reader in /etc/puckalarm/puckd.conf, "
          + "[reader] device (e.g. pn532_uart:/dev/ttyUSB0); see hardware/README.md.")
      return lines.joined(separator: "\n")
    }
    lines.append("Reader UART:  \(uart) (GPIO 14/15, header pins 8 and 10)")
    for finding in survey.findings {
      let mark = finding.ok ? "ok  " : finding.needed ? "FIX " : "note"
      lines.append("  \(mark) \(finding.name): \(finding.detail)")
      if let fix = finding.fix, !finding.ok { lines.append("         → \(fix)") }
    }
    lines.append(
      "Readers worth trying here, one at a time: " + survey.readerCandidates.joined(separator: ", "))
    lines.append(
      survey.uartReady
        ? "The board is ready for a reader on its UART: [reader] device = pn532_uart:\(uart)"
        : "Change what FIX names, reboot, and run 'sudo puckctl setup' again.")
    lines.append(
      "Next (not yet in the assistant): the reader, sound, buzzer, button and LED, as the bring-up "
        + "checklist in hardware/README.md goes on.")
    return lines.joined(separator: "\n")
  }
}

extension String {
  fileprivate func trimmingSuffix(_ suffix: String) -> String {
    var text = self
    while text.count > 1 && text.hasSuffix(suffix) { text.removeLast(suffix.count) }
    return text
  }
}
