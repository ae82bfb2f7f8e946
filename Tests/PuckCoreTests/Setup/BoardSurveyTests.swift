import PuckCore
import Testing

/// The assistant's board step: the reader UART each board uses and what its boot files still
/// lack, by raspi-config's own rules (a fresh Raspberry Pi OS card has the UART off and a
/// console on it).
@Suite struct BoardSurveyTests {
  private func survey(
    _ model: String?, config: String = "", commandLine: String = "console=tty1 root=PARTUUID=1 rootwait",
    serial0: String? = nil, devices: Set<String> = []
  ) -> BoardSurvey {
    BoardSurvey(
      BoardSurvey.Facts(
        model: model.map { $0 + "\u{0}" }, configText: config, commandLine: commandLine,
        serial0Target: serial0,
        devices: devices))
  }

  private func finding(_ name: String, in survey: BoardSurvey) -> BoardSurvey.Finding? {
    survey.findings.first { $0.name == name }
  }

  @Test func aFreshPi3CardHasTheUARTOffAndTheConsoleOnIt() throws {
    let pi3 = survey(
      "Raspberry Pi 3 Model B Rev 1.2", config: "dtparam=audio=on\n",
      commandLine: "console=serial0,115200 console=tty1 root=PARTUUID=1 rootwait")
    #expect(pi3.board == .pi3)
    #expect(pi3.readerUART == "/dev/serial0")
    let uart = try #require(finding("uart", in: pi3))
    #expect(!uart.ok && uart.needed)
    #expect(uart.fix?.hasPrefix("sudo raspi-config nonint do_serial_hw 0") == true)
    let console = try #require(finding("serial-console", in: pi3))
    #expect(!console.ok && console.needed)
    #expect(console.fix?.hasPrefix("sudo raspi-config nonint do_serial_cons 1") == true)
    #expect(!pi3.uartReady)
    #expect(pi3.readerCandidates == ["acr122_usb"], "a UART that is off is not probed")
  }

  @Test func aPi4WithTheUARTOnAndBluetoothOffIsReady() throws {
    let pi4 = survey(
      "Raspberry Pi 4 Model B Rev 1.4", config: "[all]\nenable_uart=1\ndtoverlay=disable-bt\n",
      serial0: "ttyAMA0",
      devices: ["/dev/serial0", "/dev/ttyAMA0"])
    #expect(pi4.board == .pi4)
    #expect(pi4.uartReady)
    #expect(finding("uart-kind", in: pi4)?.ok == true)
    #expect(pi4.readerCandidates == ["pn532_uart:/dev/serial0", "acr122_usb"])
  }

  @Test func onAPi4TheMiniUARTIsANoteNotABlocker() throws {
    let pi4 = survey(
      "Raspberry Pi 4 Model B Rev 1.5", config: "enable_uart=1\n", serial0: "ttyS0", devices: ["/dev/serial0"]
    )
    let kind = try #require(finding("uart-kind", in: pi4))
    #expect(!kind.ok && !kind.needed)
    #expect(kind.fix?.contains("dtoverlay=disable-bt") == true)
    #expect(pi4.uartReady)
  }

  @Test func onAPi5TheReaderIsOnTTYAMA0AndAConsoleOnSerial0IsTheDebugPort() throws {
    let pi5 = survey(
      "Raspberry Pi 5 Model B Rev 1.0", config: "dtparam=uart0=on\n",
      commandLine: "console=serial0,115200 console=tty1 root=PARTUUID=1", serial0: "ttyAMA10",
      devices: ["/dev/serial0", "/dev/ttyAMA0"])
    #expect(pi5.board == .pi5)
    #expect(pi5.readerUART == "/dev/ttyAMA0")
    #expect(finding("serial-console", in: pi5)?.ok == true)
    #expect(finding("uart-kind", in: pi5) == nil)
    #expect(pi5.uartReady)
    #expect(pi5.readerCandidates.first == "pn532_uart:/dev/ttyAMA0")

    let consoleOnTheReader = survey(
      "Raspberry Pi 5 Model B Rev 1.0", config: "dtparam=uart0\n",
      commandLine: "console=ttyAMA0,115200 root=x")
    #expect(finding("serial-console", in: consoleOnTheReader)?.ok == false)
    let turnedOffLater = survey(
      "Raspberry Pi 5 Model B Rev 1.0", config: "dtparam=uart0=on\ndtparam=uart0=off\n")
    #expect(finding("uart", in: turnedOffLater)?.ok == false, "the last mention wins")
    let enableUARTIsNotThePi5Switch = survey("Raspberry Pi 5 Model B Rev 1.0", config: "enable_uart=1\n")
    #expect(finding("uart", in: enableUARTIsNotThePi5Switch)?.ok == false)
    let overlay = survey("Raspberry Pi 5 Model B Rev 1.0", config: "dtoverlay=uart0-pi5\n")
    #expect(finding("uart", in: overlay)?.ok == true, "the Pi 5's uart0 overlay turns it on too")
  }

  @Test("the release comes from /etc/os-release; one older than Debian 12 is named with what to do")
  func release() throws {
    func surveyed(_ osRelease: String?) -> BoardSurvey {
      BoardSurvey(
        BoardSurvey.Facts(
          model: "Raspberry Pi 4 Model B Rev 1.4", configText: "enable_uart=1\n", commandLine: "root=x",
          serial0Target: nil, devices: [], osRelease: osRelease))
    }
    let trixie = surveyed(
      "PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"13\"\nID=debian\n"
    )
    #expect(trixie.release == "Debian GNU/Linux 13 (trixie)")
    #expect(finding("release", in: trixie)?.ok == true)
    let bullseye = surveyed(
      "PRETTY_NAME='Raspbian GNU/Linux 11 (bullseye)'\nVERSION_ID=\"11\"\nID=raspbian\n")
    let old = try #require(finding("release", in: bullseye))
    #expect(!old.ok && !old.needed && old.fix?.contains("Debian 12 (bookworm) and 13 (trixie)") == true)
    #expect(bullseye.uartReady, "a note, not a blocker")
    #expect(surveyed(nil).release == nil && finding("release", in: surveyed(nil)) == nil)
  }

  @Test func aZero2WReadsItsOwnFilterAndSkipsOthers() throws {
    let zero = survey(
      "Raspberry Pi Zero 2 W Rev 1.0",
      config: "[pi02]\nenable_uart=1\n[cm4]\nenable_uart=0\n[all]\ndtparam=i2c_arm=on\n",
      devices: ["/dev/serial0", "/dev/i2c-1"])
    #expect(zero.board == .zero2W)
    #expect(finding("uart", in: zero)?.ok == true)
    #expect(finding("i2c", in: zero)?.ok == true)
    #expect(zero.readerCandidates == ["pn532_uart:/dev/serial0", "pn532_i2c:/dev/i2c-1", "acr122_usb"])
    let offForThisBoardOnly = survey(
      "Raspberry Pi Zero 2 W Rev 1.0", config: "enable_uart=1\n[pi4]\nenable_uart=0\n")
    #expect(finding("uart", in: offForThisBoardOnly)?.ok == true, "a [pi4] line does not apply to a Zero 2 W")
  }

  @Test func anUnknownBoardNamesNoUARTAndIsNotReady() {
    let other = survey("Generic x86 board", devices: ["/dev/spidev0.0"])
    #expect(other.board == .other)
    #expect(other.readerUART == nil)
    #expect(!other.uartReady)
    #expect(other.readerCandidates == ["pn532_spi:/dev/spidev0.0", "acr122_usb"])
    #expect(survey(nil).model == "unknown")
  }

  @Test("I²C and SPI: on by their device or by config.txt, never needed, and what turns each on")
  func theOtherBuses() throws {
    let board = survey(
      "Raspberry Pi 4 Model B Rev 1.4", config: "dtparam=i2c_arm=on\n", devices: ["/dev/spidev0.0"])
    let i2c = try #require(finding("i2c", in: board))
    #expect(i2c.ok && !i2c.needed && i2c.fix == nil)
    #expect(i2c.detail == "I²C is on in /boot/firmware/config.txt")
    let spi = try #require(finding("spi", in: board))
    #expect(spi.ok && !spi.needed && spi.detail == "SPI 0 is on (/dev/spidev0.0)")
    #expect(board.readerCandidates.contains("pn532_spi:/dev/spidev0.0"))
    #expect(!board.readerCandidates.contains { $0.hasPrefix("pn532_i2c") }, "no device, no probe")
    let none = survey("Raspberry Pi 4 Model B Rev 1.4")
    #expect(finding("i2c", in: none)?.detail == "I²C is off")
    #expect(finding("i2c", in: none)?.fix == "only for a reader on I²C: sudo raspi-config nonint do_i2c 0")
    #expect(finding("spi", in: none)?.fix == "only for a reader on SPI: sudo raspi-config nonint do_spi 0")
  }
}
