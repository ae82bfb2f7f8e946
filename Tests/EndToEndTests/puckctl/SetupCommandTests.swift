import Foundation
import Testing

/// `puckctl setup` run as a process over a fake board: a device tree, the firmware's files and
/// `/dev` laid out under `--root` as a fresh card of each board has them.
@Suite("puckctl setup")
struct SetupCommandTests {
  /// A board's files under a fresh temporary root.
  private func board(
    model: String, config: String, commandLine: String, serial0: String?, devices: [String]
  ) throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "puck-board-\(UUID().uuidString)")
    let files = FileManager.default
    for directory in ["proc/device-tree", "boot/firmware", "dev"] {
      try files.createDirectory(at: root.appendingPathComponent(directory), withIntermediateDirectories: true)
    }
    try Data((model + "\u{0}").utf8).write(to: root.appendingPathComponent("proc/device-tree/model"))
    try Data(config.utf8).write(to: root.appendingPathComponent("boot/firmware/config.txt"))
    try Data((commandLine + "\n").utf8).write(to: root.appendingPathComponent("boot/firmware/cmdline.txt"))
    for device in devices { try Data().write(to: root.appendingPathComponent("dev/" + device)) }
    if let serial0 {
      try files.createSymbolicLink(
        atPath: root.appendingPathComponent("dev/serial0").path, withDestinationPath: serial0)
    }
    return root
  }

  @Test("each board's fresh card: the UART to use, and what to change, with raspi-config's commands")
  func freshCards() throws {
    let console = "console=serial0,115200 console=tty1 root=PARTUUID=1 rootwait"
    let cases: [(model: String, uart: String)] = [
      ("Raspberry Pi 3 Model B Plus Rev 1.3", "/dev/serial0"),
      ("Raspberry Pi 4 Model B Rev 1.4", "/dev/serial0"),
      ("Raspberry Pi Zero 2 W Rev 1.0", "/dev/serial0"), ("Raspberry Pi 5 Model B Rev 1.0", "/dev/ttyAMA0"),
    ]
    for (model, uart) in cases {
      let root = try board(
        model: model, config: "dtparam=audio=on\n", commandLine: console, serial0: nil, devices: [])
      defer { try? FileManager.default.removeItem(at: root) }
      let result = try run("puckctl", ["setup", "--root", root.path])
      #expect(result.status == 1, "\(model): not ready")
      #expect(result.stdout.contains("Reader UART:  \(uart)"), "\(model)")
      #expect(result.stdout.contains("sudo raspi-config nonint do_serial_hw 0"), "\(model)")
      // A Pi 5's serial0 is the debug connector: its console leaves the reader's UART alone.
      #expect(result.stdout.contains("do_serial_cons 1") == !model.contains("Pi 5"), "\(model)")
    }
  }

  @Test("a board made ready reads as ready, with the reader's connstring to use")
  func readyBoards() throws {
    let pi4 = try board(
      model: "Raspberry Pi 4 Model B Rev 1.4", config: "enable_uart=1\ndtoverlay=disable-bt\n",
      commandLine: "console=tty1 root=PARTUUID=1", serial0: "ttyAMA0", devices: ["ttyAMA0"])
    defer { try? FileManager.default.removeItem(at: pi4) }
    let result = try run("puckctl", ["setup", "--root", pi4.path])
    #expect(result.status == 0)
    #expect(result.stdout.contains("[reader] device = pn532_uart:/dev/serial0"))

    let pi5 = try board(
      model: "Raspberry Pi 5 Model B Rev 1.0", config: "dtparam=uart0=on\n",
      commandLine: "console=serial0,115200",
      serial0: "ttyAMA10", devices: ["ttyAMA10", "ttyAMA0"])
    defer { try? FileManager.default.removeItem(at: pi5) }
    let json = try run("puckctl", ["setup", "--root", pi5.path, "--json"])
    #expect(json.status == 0)
    let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
    #expect(object?["uartReady"] as? Bool == true)
    #expect((object?["readerCandidates"] as? [String])?.first == "pn532_uart:/dev/ttyAMA0")
  }
}
