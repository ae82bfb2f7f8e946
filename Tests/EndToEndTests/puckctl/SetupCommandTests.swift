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

  @Test("a board made ready reads as ready, and its reader UART is the first reader tried")
  func readyBoards() throws {
    let pi4 = try board(
      model: "Raspberry Pi 4 Model B Rev 1.4", config: "enable_uart=1\ndtoverlay=disable-bt\n",
      commandLine: "console=tty1 root=PARTUUID=1", serial0: "ttyAMA0", devices: ["ttyAMA0"])
    defer { try? FileManager.default.removeItem(at: pi4) }
    let result = try run(
      "puckctl",
      ["--socket", "/nonexistent", "setup", "--root", pi4.path, "--config", "/nonexistent", "--yes"])
    #expect(!result.stdout.contains("FIX"), "\(result.stdout)")
    #expect(!result.stdout.contains("not ready"), "\(result.stdout)")
    // The fake board's serial0 is a plain file: no PN532 answers there, so setup says so.
    #expect(result.stdout.contains("  pn532_uart:\(pi4.path)/dev/serial0: "), "\(result.stdout)")
    #expect(result.stdout.contains("No reader answered"))
    #expect(result.status == 1)

    let pi5 = try board(
      model: "Raspberry Pi 5 Model B Rev 1.0", config: "dtparam=uart0=on\n",
      commandLine: "console=serial0,115200",
      serial0: "ttyAMA10", devices: ["ttyAMA10", "ttyAMA0"])
    defer { try? FileManager.default.removeItem(at: pi5) }
    let json = try run(
      "puckctl",
      [
        "--socket", "/nonexistent", "setup", "--root", pi5.path, "--config", "/nonexistent", "--yes",
        "--json",
      ])
    let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
    let survey = try #require(object?["board"] as? [String: Any], "\(json.stdout)")
    #expect(survey["uartReady"] as? Bool == true)
    #expect((survey["readerCandidates"] as? [String])?.first == "pn532_uart:/dev/ttyAMA0")
    #expect(object?["daemonRunning"] as? Bool == false)
  }
}
