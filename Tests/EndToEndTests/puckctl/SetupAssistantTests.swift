import Foundation
import Glibc
import PN532Emulator
import Testing

/// `sudo puckctl setup` taking each of the four boards, emulated, from a fresh config to a dock
/// whose reader, pairing, audio and timer pass the pre-flight check: a fake device tree and
/// `/dev` under `--root`, the PN532 emulator on a pseudo-terminal where the board's reader UART
/// points, and the real daemon reloaded by the assistant.
@Suite("puckctl setup, the assistant", .serialized)
struct SetupAssistantTests {
  private static let paired = "04:A2:3B:11:22:33:44"

  /// A board whose UART is on and free, with the emulated PN532 where its reader UART points.
  private struct Board {
    let root: URL
    let emulator: PN532Emulator
    /// The connstring the assistant should find: the board's UART under the fake root.
    let connstring: String

    /// A board; with `reader` false nothing answers on its UART (the reader is elsewhere).
    init(model: String, reader: Bool = true) throws {
      root = FileManager.default.temporaryDirectory.appendingPathComponent("puck-board-\(UUID().uuidString)")
      let files = FileManager.default
      for directory in ["proc/device-tree", "boot/firmware", "dev", "etc"] {
        try files.createDirectory(
          at: root.appendingPathComponent(directory), withIntermediateDirectories: true)
      }
      let link = root.appendingPathComponent("pn532").path
      emulator = try PN532Emulator(linkPath: link)
      emulator.add(uid: [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44])
      let pi5 = model.contains("Pi 5")
      try Data((model + "\u{0}").utf8).write(to: root.appendingPathComponent("proc/device-tree/model"))
      try Data((pi5 ? "dtparam=uart0=on\n" : "enable_uart=1\ndtoverlay=disable-bt\n").utf8).write(
        to: root.appendingPathComponent("boot/firmware/config.txt"))
      try Data("console=tty1 root=PARTUUID=1 rootwait\n".utf8).write(
        to: root.appendingPathComponent("boot/firmware/cmdline.txt"))
      try Data("PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nVERSION_ID=\"13\"\nID=debian\n".utf8).write(
        to: root.appendingPathComponent("etc/os-release"))
      // On a Pi 5 the reader is on ttyAMA0 and serial0 is the debug connector; elsewhere
      // serial0 is the reader's UART.
      let uart = pi5 ? "dev/ttyAMA0" : "dev/serial0"
      if reader {
        try files.createSymbolicLink(
          atPath: root.appendingPathComponent(uart).path, withDestinationPath: link)
      }
      if pi5 {
        try Data().write(to: root.appendingPathComponent("dev/ttyAMA10"))
        try files.createSymbolicLink(
          atPath: root.appendingPathComponent("dev/serial0").path, withDestinationPath: "ttyAMA10")
      }
      connstring = "pn532_uart:" + root.appendingPathComponent(uart).path
    }

    func remove() {
      emulator.shutdown()
      try? FileManager.default.removeItem(at: root)
    }
  }

  /// A dock as a fresh install leaves it, `device = auto` (which finds no PN532 on a UART),
  /// with a puck paired and an alarm set, so the check has a timer and a pairing to read back.
  private func freshDock() throws -> DaemonHarness {
    let dock = try DaemonHarness(
      simulate: false,
      config:
        "# my dock\n[reader]\n# Which reader.\ndevice = auto\n\n[audio]\ndevice = null   # no speaker yet\n",
      audio: false, lockBefore: nil)
    try dock.writePairing(Self.paired)
    try dock.start()
    _ = try dock.addAlarm(inSeconds: 3_600)
    return dock
  }

  private func setup(_ dock: DaemonHarness, _ board: Board) throws -> (ProcessResult, [String: Any]) {
    let result = try run(
      "puckctl",
      [
        "--socket", dock.socketPath, "setup", "--root", board.root.path, "--config", dock.configPath, "--yes",
        "--json",
      ])
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    return (result, object)
  }

  private func checkParts(_ report: [String: Any]) -> [String: Bool] {
    let parts = (report["check"] as? [String: Any])?["parts"] as? [[String: Any]] ?? []
    var found: [String: Bool] = [:]
    for part in parts { found[part["name"] as? String ?? ""] = part["ok"] as? Bool }
    return found
  }

  @Test(
    "each board from a fresh config to a passing check: the reader found on its UART, written, the rest kept",
    arguments: [
      "Raspberry Pi 3 Model B Rev 1.2", "Raspberry Pi 4 Model B Rev 1.4", "Raspberry Pi 5 Model B Rev 1.0",
      "Raspberry Pi Zero 2 W Rev 1.0",
    ])
  func freshConfigToPassingCheck(_ model: String) throws {
    let board = try Board(model: model)
    defer { board.remove() }
    let dock = try freshDock()
    let (result, report) = try setup(dock, board)
    #expect(report["reader"] as? String == board.connstring, "\(model): \(result.stderr)")
    #expect((report["readerDetail"] as? String)?.contains("PN532") == true, "\(result.stderr)")
    #expect(report["configWritten"] as? Bool == true)
    let backup = try #require(report["configBackup"] as? String)
    #expect(
      try String(contentsOfFile: backup, encoding: .utf8).contains("device = auto"), "the old file is kept")

    let config = try String(contentsOfFile: dock.configPath, encoding: .utf8)
    #expect(
      config
        == "# my dock\n[reader]\n# Which reader.\ndevice = \(board.connstring)\n\n[audio]\ndevice = null   # no speaker yet\n",
      "only the reader's line changed")
    let parts = checkParts(report)
    for part in ["reader", "pairing", "audio", "timer"] { #expect(parts[part] == true, "\(model): \(part)") }
    // The clock may or may not be synchronised where this runs; the exit status follows it.
    #expect(result.status == (parts["clock"] == true ? 0 : 1), "\(result.stderr)")
    #expect(report["puckPaired"] as? Bool == true)
    #expect((report["board"] as? [String: Any])?["release"] as? String == "Debian GNU/Linux 13 (trixie)")
    #expect(result.stderr.contains("Release:      Debian GNU/Linux 13 (trixie)"), "\(result.stderr)")
    // It ends with the dock's verdict, as status gives it.
    #expect(
      report["protected"] as? Bool == (result.stderr.contains("Dock:         PROTECTED")), "\(result.stderr)")
    #expect(
      result.stderr.contains("pre-flight check passed") || result.stderr.contains("pre-flight check FAILED"),
      "\(result.stderr)")

    // Run again on the working dock: it confirms and changes nothing.
    let (again, second) = try setup(dock, board)
    #expect(second["configWritten"] as? Bool == false, "\(again.stderr)")
    #expect(again.stderr.contains("puckd's reader answers"), "\(again.stderr)")
    #expect(try String(contentsOfFile: dock.configPath, encoding: .utf8) == config)
    #expect(checkParts(second)["reader"] == true)
  }

  @Test("a config the daemon would refuse is left alone, and nothing is probed or written")
  func refusesABrokenConfig() throws {
    let board = try Board(model: "Raspberry Pi 4 Model B Rev 1.4")
    defer { board.remove() }
    let dock = try freshDock()
    let broken = "[reader]\ndevice = auto\npoll_interval = soon\n"
    try broken.write(toFile: dock.configPath, atomically: true, encoding: .utf8)
    let (result, report) = try setup(dock, board)
    #expect(result.status == 1)
    #expect(result.stderr.contains("puckd.conf:3:"), "\(result.stderr)")
    #expect(report["configWritten"] as? Bool == false)
    #expect(try String(contentsOfFile: dock.configPath, encoding: .utf8) == broken)
  }

  @Test(
    "from a script (--yes) with no puck paired it never pairs, it says how; the file keeps its mode and group; a backup never takes an earlier one's name",
    .enabled(if: geteuid() == 0, "the config is given another group, which needs root"))
  func scriptedRunNeverPairsAndBacksUpBeside() throws {
    let board = try Board(model: "Raspberry Pi 4 Model B Rev 1.4")
    defer { board.remove() }
    let dock = try DaemonHarness(
      simulate: false, config: "[reader]\ndevice = auto\n\n[audio]\ndevice = null\n", audio: false,
      lockBefore: nil)
    try dock.start()
    _ = try dock.addAlarm(inSeconds: 3_600)
    #expect(chmod(dock.configPath, 0o640) == 0 && chown(dock.configPath, getuid(), 4242) == 0)
    // Backups already there under the name of every second this run may start in.
    let format = DateFormatter()
    format.timeZone = TimeZone(identifier: "UTC")
    format.dateFormat = "yyyy-MM-dd'T'HHmmss'Z'"
    let earlier = (-1...90).map {
      dock.configPath + ".before-setup-" + format.string(from: Date() + Double($0))
    }
    for path in earlier { try "earlier backup\n".write(toFile: path, atomically: false, encoding: .utf8) }

    // The emulated reader holds a tag: pairing it unasked is what a script must never do.
    let result = try run(
      "puckctl",
      ["--socket", dock.socketPath, "setup", "--root", board.root.path, "--config", dock.configPath, "--yes"])
    #expect(result.stdout.contains("Pair it with: sudo puckctl pair"), "\(result.stdout)")
    let status = try dock.status()
    #expect(
      status["pairedTag"] == nil || status["pairedTag"] is NSNull, "setup --yes paired a tag: \(status)")

    var info = stat()
    #expect(stat(dock.configPath, &info) == 0)
    #expect(
      info.st_mode & 0o7777 == 0o640 && info.st_gid == 4242, "mode \(info.st_mode), group \(info.st_gid)")
    for path in earlier {
      #expect(try String(contentsOfFile: path, encoding: .utf8) == "earlier backup\n", "\(path) was replaced")
    }
    let backups = try FileManager.default.contentsOfDirectory(atPath: dock.directory.path).filter {
      $0.contains(".before-setup-") && $0.hasSuffix("Z-2")
    }
    #expect(backups.count == 1, "one new backup, numbered: \(backups); \(result.stdout)")
    if let backup = backups.first {
      let path = dock.directory.appendingPathComponent(backup).path
      #expect(try String(contentsOfFile: path, encoding: .utf8).contains("device = auto"))
      #expect(stat(path, &info) == 0 && info.st_mode & 0o7777 == 0o640 && info.st_gid == 4242)
    }
  }

  @Test(
    "a configured sound device that does not open is replaced by one that does, written beside the reader")
  func soundThatDoesNotOpenIsReplaced() throws {
    let board = try Board(model: "Raspberry Pi 4 Model B Rev 1.4")
    defer { board.remove() }
    let dock = try DaemonHarness(
      simulate: false, config: "[reader]\ndevice = auto\n\n[audio]\ndevice = nodevice\n", audio: false,
      lockBefore: nil)
    try dock.writePairing(Self.paired)
    try dock.start()
    let sink = try PulseSink()
    defer { sink.unload() }
    let result = try run(
      "puckctl",
      [
        "--socket", dock.socketPath, "setup", "--root", board.root.path, "--config", dock.configPath, "--yes",
        "--json",
      ], environment: ["PULSE_SERVER": PulseServer.shared.address, "PULSE_SINK": sink.name])
    let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    let audio = try #require(report["audio"] as? String, "\(result.stderr)")
    #expect(audio != "nodevice")
    #expect(result.stderr.contains("nodevice:"), "the device that failed is named: \(result.stderr)")
    let config = try String(contentsOfFile: dock.configPath, encoding: .utf8)
    #expect(config.contains("[audio]\ndevice = \(audio)\n"), "\(config)")
    #expect(config.contains("[reader]\ndevice = \(board.connstring)\n"), "\(config)")
  }

  @Test(
    "asked as a person is asked, in a terminal: the tag shown masked, the tone heard, the write confirmed, the check shown; with no puck, pairing offered and done",
    arguments: [true, false])
  func interactiveInATerminal(paired: Bool) throws {
    let board = try Board(model: "Raspberry Pi 4 Model B Rev 1.4")
    defer { board.remove() }
    // The daemon plays into a null sink of its own; the assistant, asked about `pulse`, into it too.
    let dock = try DaemonHarness(
      simulate: false, config: "# my dock\n[reader]\n# Which reader.\ndevice = auto\n", lockBefore: nil)
    if paired { try dock.writePairing(Self.paired) }
    try dock.start()
    _ = try dock.addAlarm(inSeconds: 3_600)
    let sink = try #require(dock.audio)
    let command =
      [
        "env", "PULSE_SERVER=\(PulseServer.shared.address)", "PULSE_SINK=\(sink.name)",
        Binaries.url("puckctl").path, "--socket", dock.socketPath, "setup", "--root", board.root.path,
        "--config", dock.configPath,
      ].joined(separator: " ")
    let pane = try CompletionTests.ShellPane("sh -c '\(command); echo EXIT=$?; sleep 120'")
    defer { pane.close() }
    try waitUntil(timeout: 30, "the tag, then the tone") {
      let screen = try pane.screen()
      return screen.contains("…:33:44") && screen.contains("pulse: playing the alarm tone")
    }
    try waitUntil(timeout: 5, "the tone plays into the dock's sound device") { try sink.hasStream() }
    try waitUntil(timeout: 30, "the question whether it was heard") {
      try pane.screen().contains("Did you hear it? [Y/n]")
    }
    try pane.send("y", "Enter")
    try waitUntil(timeout: 30, "the change shown, then the question") {
      try pane.screen().contains("Write it?")
    }
    #expect(try pane.screen().contains("[reader] device = pn532_uart:"))
    try pane.send("y", "Enter")
    if !paired {
      try waitUntil(timeout: 60, "the offer to pair") { try pane.screen().contains("Pair one now? [Y/n]") }
      try pane.send("y", "Enter")
      // puckd's reader now: the tag is taken away and laid down again, as a person pairing does,
      // each step once the dock has said it saw the one before (a sanitizer build polls slowly).
      try waitUntil(timeout: 30, "the first read") { try pane.screen().contains("lift it and present") }
      let removals = dock.log.components(separatedBy: "reader: tag removed").count
      board.emulator.remove()
      try waitUntil(timeout: 30, "the lift seen") {
        dock.log.components(separatedBy: "reader: tag removed").count > removals
      }
      _ = board.emulator.present(uid: [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44])
    }
    try waitUntil(timeout: 60, "the check after the reload") { try pane.screen().contains("EXIT=") }
    if !paired {
      let status = try dock.status()
      let screen = try pane.screen()
      #expect(status["pairedTag"] as? String == "…:33:44", "paired from the assistant: \(screen)")
    }
    let screen = try pane.screen()
    #expect(screen.contains("pre-flight check ") && screen.contains("reader: ok"), "\(screen)")
    #expect(screen.contains("audio: ok"), "\(screen)")
    let config = try String(contentsOfFile: dock.configPath, encoding: .utf8)
    #expect(config.contains("device = \(board.connstring)"))
    #expect(config.contains("[audio]\ndevice = pulse\n"), "the device heard is kept: \(config)")
  }

  @Test(
    "a configured buzzer that cannot be opened is a failure with its next step; a part nobody confirmed is never added"
  )
  func configuredBuzzerThatCannotOpen() throws {
    let board = try Board(model: "Raspberry Pi 4 Model B Rev 1.4")
    defer { board.remove() }
    let dock = try DaemonHarness(
      simulate: false,
      config:
        "[reader]\ndevice = auto\n\n[audio]\ndevice = null\n\n[buzzer]\nchip = gpiochip97\nline = GPIO22\n",
      audio: false, lockBefore: nil)
    try dock.writePairing(Self.paired)
    try dock.start()
    let (result, report) = try setup(dock, board)
    let parts = report["parts"] as? [String: String] ?? [:]
    let buzzer = parts["buzzer"] ?? ""
    #expect(
      buzzer.hasPrefix("failed: cannot find line GPIO22") && buzzer.contains("gpiochip97"), "\(result.stderr)"
    )
    #expect(result.stderr.contains("buzzer: FAILED"), "\(result.stderr)")
    // The next step is the one status gives for the daemon's own failure to open it.
    let devices = try dock.status()["devices"] as? [[String: Any]] ?? []
    let statusNext = try #require(devices.first { $0["name"] as? String == "buzzer" }?["next"] as? String)
    #expect(
      result.stderr.contains("next: \(statusNext)"), "status says '\(statusNext)'; setup: \(result.stderr)")
    #expect(parts["button"] != "ok" && parts["led"] != "ok", "nothing confirms a part with --yes: \(parts)")
    let config = try String(contentsOfFile: dock.configPath, encoding: .utf8)
    #expect(
      config.contains("[buzzer]\nchip = gpiochip97\nline = GPIO22\n"),
      "the buzzer's lines are kept: \(config)")
    #expect(!config.contains("[button]") && !config.contains("[led]"), "\(config)")
  }

  @Test(
    "no reader on the board: a reader node is offered and enrolled in a terminal, and then setup goes on with it"
  )
  func readerNodeOffered() throws {
    let board = try Board(model: "Raspberry Pi 4 Model B Rev 1.4", reader: false)
    defer { board.remove() }
    let dock = try freshDock()
    let (alone, _) = try setup(dock, board)
    #expect(alone.status == 1)
    #expect(
      alone.stderr.contains("No reader answered") && alone.stderr.contains("reader node"), "\(alone.stderr)")

    let command = [
      Binaries.url("puckctl").path, "--socket", dock.socketPath, "setup", "--root", board.root.path,
      "--config", dock.configPath,
    ].joined(separator: " ")
    let pane = try CompletionTests.ShellPane("sh -c '\(command); echo EXIT=$?; sleep 120'")
    defer { pane.close() }
    try waitUntil(timeout: 60, "the offer of a reader node") {
      try pane.screen().contains("on a reader node (a second board, over MQTT)? [Y/n]")
    }
    try pane.send("y", "Enter")
    try waitUntil(timeout: 10, "its name") { try pane.screen().contains("the node's name? [kitchen]") }
    try pane.send("Enter")
    try waitUntil(timeout: 10, "the node enrolled") { try pane.screen().contains("reader kitchen enrolled") }
    try waitUntil(timeout: 30, "the sound step after it") { try pane.screen().contains("Sound:") }

    let (again, report) = try setup(dock, board)
    let nodes = report["readerNodes"] as? [String] ?? []
    #expect(nodes.contains { $0.contains("kitchen") }, "\(again.stderr)")
    #expect(!again.stderr.contains("No reader answered"), "\(again.stderr)")
    #expect(report["audio"] as? String == "null", "the steps after the reader ran: \(again.stderr)")
    // No reader on the board: the config stops looking for one, so only the node counts.
    let config = try String(contentsOfFile: dock.configPath, encoding: .utf8)
    #expect(config.contains("[reader]\n# Which reader.\ndevice = none\n"), "\(config)")
    #expect(report["configWritten"] as? Bool == true)
    let reasons = report["reasons"] as? [String] ?? ["no verdict in the report"]
    #expect(report["protected"] is Bool, "the verdict is in the report: \(again.stdout)")
    #expect(
      !reasons.contains { $0.contains("reader") && !$0.contains("kitchen") },
      "no reason names a reader of the board's own: \(reasons)")
    #expect(again.stderr.contains("Dock:         "), "setup ends with the dock's verdict: \(again.stderr)")
  }
}
