import FoundationEssentials
import Glibc
import PuckClient
import PuckCore
import PuckDevices
import PuckStorage

/// `puckctl setup`, the bring-up assistant (issue 26): the board (`BoardSurvey`), then the
/// reader, probed one candidate at a time through libnfc with explicit connstrings, then
/// `[reader] device` written into `puckd.conf` (every other line kept, the old file kept
/// beside it, the new one read back by the daemon's own parser), the daemon reloaded and its
/// pre-flight check shown. Boot files are only ever named with the command that changes them.
/// Everything it reads of the machine is under `--root`, so the tests hand it a fake board.
struct SetupCommand {
  /// The bus devices the survey looks for.
  static let devices = ["/dev/serial0", "/dev/ttyAMA0", "/dev/i2c-1", "/dev/spidev0.0"]

  let request: ControlRequest
  let client: DaemonClient
  let zone: ZoneRules
  let now: Instant

  /// What `--json` prints: each step's finding.
  struct Report: Encodable {
    var board: BoardSurvey?
    /// The reader's connstring, as written to the config; nil when none answered.
    var reader: String?
    /// What the reader said (`PN532 v1.6 on …`).
    var readerDetail: String?
    /// The tag presented, masked.
    var tag: String?
    /// The ALSA device that opened (and, asked, was heard); nil when none did.
    var audio: String?
    /// The buzzer's, button's and LED's findings: ok, opens, not confirmed, none, failed: why.
    var parts: [String: String] = [:]
    /// The reader nodes puckd has, when no reader answered on this board.
    var readerNodes: [String]?
    var configPath = ""
    var configWritten = false
    var configBackup: String?
    /// Whether puckd answered on its socket.
    var daemonRunning = false
    var check: PreflightReport?
    var puckPaired: Bool?
    /// The dock's verdict after setup, as status gives it; nil when puckd did not answer.
    var protected: Bool?
    /// Why not, status's reasons; nil when puckd did not answer.
    var reasons: [String]?
  }

  private var root: String { request.text(.root) ?? "/" }
  var assumeYes: Bool { request.flag(.yes) }
  var json: Bool { request.flag(.json) }

  func run(configPath: String) throws -> ExitCode {
    var report = Report(configPath: configPath)
    let survey = BoardSurvey(try Self.facts(under: root))
    report.board = survey
    say(Self.render(survey))

    let status = try? client.send(ControlRequest(.status)).status
    report.daemonRunning = status != nil
    let before = try DurableFile.read(configPath).map { String(decoding: $0, as: UTF8.self) }
    var config = DockConfig()
    if let before {
      do {
        config = try DockConfig.parse(before, file: configPath)
      } catch {
        say("\(configPath) has a mistake the daemon refuses: \(error). Fix it first; setup changes nothing.")
        return finish(report, .failure)
      }
    }

    // libnfc's own log lines repeat, less helpfully, what each probe reports.
    setenv("LIBNFC_LOG_LEVEL", "0", 0)
    let configured = before == nil ? nil : config.reader.device
    let (reader, detail, probe) = findReader(survey, configured: configured, status: status)
    report.reader = reader
    report.readerDetail = detail
    if let probe, !assumeYes, !json {
      say("Hold a tag to the reader (up to 30 s) …")
      let tag = probe.tag(within: .seconds(30))
      report.tag = tag?.masked
      say(
        tag.map { "  the reader reads the tag \($0.masked)" }
          ?? "  no tag seen; the reader answers all the same")
    }
    if reader == nil {
      let nodes = status == nil ? [] : enrolledNodes()
      report.readerNodes = nodes
      if nodes.isEmpty {
        say("No reader answered. Check its wiring and switches (hardware/README.md).")
        guard try offerReaderNode(daemonRunning: status != nil) else { return finish(report, .failure) }
        report.readerNodes = enrolledNodes()
      } else {
        say("  no reader on this board; puckd's reader nodes end a wake-up:")
        for node in nodes { say("    \(node)") }
      }
    }

    // What to write: a reader found by probing (puckd's own, answering already, is left as it
    // is), the sound device heard and the wired parts confirmed. With no reader on the board
    // and a node in its place, `device = auto` becomes `none`: a local reader the config still
    // looks for would be a reader that cannot be reached, and the dock never protected. A
    // reader the builder named is kept: it may only be failing now (puckd holds it).
    var changes: [Change] = []
    if let reader, probe != nil && configured != .connstring(reader) {
      changes.append(("reader", "device", reader))
    } else if reader == nil, configured == nil || configured == .auto {
      changes.append(("reader", "device", ReaderDevice.none.description))
    }
    let sound = chooseSound(configured: config.audio.device)
    report.audio = sound
    if let sound, sound != config.audio.device { changes.append(("audio", "device", sound)) }
    let wired = tryWiredParts(config, status: status, configPath: configPath)
    report.parts = wired.findings
    changes += wired.changes

    if changes.isEmpty {
      say("Config:       \(configPath) has what this dock uses; nothing to change")
    } else {
      let lines = changes.map { "  [\($0.section)] \($0.key) = \($0.value)" }
      say("Config:       for \(configPath):\n" + lines.joined(separator: "\n"))
      guard ask("Write \(changes.count == 1 ? "it" : "them")?") else {
        say("Nothing written.")
        return finish(report, .failure)
      }
      report.configBackup = try write(changes, over: before, to: configPath)
      report.configWritten = true
      say("  written\(report.configBackup.map { "; the old file is kept as \($0)" } ?? "")")
    }

    guard let status else {
      say("puckd is not running here: start it (sudo systemctl start puckd), then run 'puckctl check'.")
      return finish(report, .success)
    }
    if report.configWritten {
      let reloaded = try client.send(ControlRequest(.reload))
      say(reloaded.message ?? "")
      guard reloaded.ok == true else { return finish(report, .failure) }
      waitForReader()
    }
    let check = try client.send(ControlRequest(.check)).check
    report.check = check
    say(
      check.map { ClientCommands.checkLines($0).joined(separator: "\n") }
        ?? "pre-flight check: no answer from puckd")
    if let after = try? client.send(ControlRequest(.status)).status {
      report.protected = after.protected
      report.reasons = after.reasonLines
      say("Dock:         " + StatusText.verdict(after).joined(separator: "\n"))
    }
    let paired = !(status.pucks ?? []).isEmpty || status.pairedTag != nil
    report.puckPaired = paired
    if !paired {
      say("No puck is paired yet: a wake-up can only end with one.")
      // Pairing waits for a tag: never from a script (--yes, --json), only when a person answers.
      if !json, !assumeYes, ask("Pair one now?") {
        _ = try ClientCommands(client: client, zone: zone, now: now).run(
          try ControlRequest(commandLine: ["pair"]))
      } else {
        say("Pair it with: sudo puckctl pair")
      }
    }
    return finish(report, check?.passed == true ? .success : .failure)
  }

  /// The reader to use: the daemon's own when it answers (never opened a second time; its
  /// config value returned), else the first candidate that answers, tried one at a time, its
  /// probe kept open for the tag.
  private func findReader(_ survey: BoardSurvey, configured: ReaderDevice?, status: DockStatus?)
    -> (connstring: String?, detail: String?, probe: ReaderProbe?)
  {
    let running = status?.devices.first { $0.name == DockDevice.reader.rawValue }
    if let running, running.state == .ok {
      say("Reader:       puckd's reader answers: \(running.detail)")
      return ((configured ?? .auto).description, running.detail, nil)
    }
    say("Reader:       trying the candidates one at a time (no scan of every port)")
    for candidate in survey.readerCandidates.map(rooted) {
      if case .connstring(candidate)? = configured, let running {
        // puckd holds this one and keeps retrying it: two openers would garble the link.
        say("  \(candidate): puckd's reader, \(running.state.rawValue) — \(running.detail)")
        continue
      }
      let probe = ReaderProbe(candidate)
      let health = probe.health(within: .seconds(5))
      guard let health, health.state == .ok else {
        say("  \(candidate): \(health?.detail ?? "no answer within 5 s")")
        continue
      }
      say("  \(candidate): \(health.detail)")
      return (candidate, health.detail, probe)
    }
    return (nil, nil, nil)
  }

  /// The ALSA device for the alarm: the configured one first, then `default` and each card's
  /// `plughw:` (and `pulse` where it is set up), each opened and, for a person, played for two
  /// seconds with the question whether it was heard. With --yes or --json, the first that opens.
  private func chooseSound(configured: String) -> String? {
    let listed = ALSADevice.playbackNames().filter { $0.hasPrefix("plughw:") || $0 == "pulse" }
    var candidates: [String] = []
    for name in [configured, "default"] + listed where !candidates.contains(name) { candidates.append(name) }
    say("Sound:        trying \(candidates.joined(separator: ", "))")
    var rehearsal = ALSARinger.Options()
    rehearsal.playLimit = .seconds(2)
    for name in candidates {
      let ringer = ALSARinger(device: ALSADevice(name: name), options: rehearsal)
      do throws(ALSAError) {
        try ringer.checkOpens()
      } catch {
        say("  \(name): \(error)")
        continue
      }
      if assumeYes || json {
        say("  \(name): opens")
        return name
      }
      say("  \(name): playing the alarm tone for 2 s …")
      // The ring ends by itself after its play limit; a device that fails keeps retrying, so
      // the wait is bounded and whatever is left is stopped.
      ringer.start(sound: AlarmTone.sound, startVolume: 0.7, ramp: nil)
      let finished = ringer.waitUntilStopped(timeout: .seconds(4))
      let health = ringer.health
      ringer.stop()
      if !finished { _ = ringer.waitUntilStopped(timeout: .seconds(2)) }
      if case .faulted(let fault) = health {
        say("  \(name): could not play: \(fault)")
        continue
      }
      if ask("Did you hear it?") { return name }
    }
    say("  no device played where you could hear it: see hardware/README.md (sound) and aplay -L")
    return nil
  }

  /// A candidate's device under `--root` (the tests' fake board); as it is under `/`.
  private func rooted(_ connstring: String) -> String {
    guard root != "/", let colon = connstring.firstIndex(of: ":") else { return connstring }
    let device = connstring[connstring.index(after: colon)...]
    guard device.hasPrefix("/") else { return connstring }
    return String(connstring[...colon]) + root.trimmingSuffix("/") + String(device)
  }

  /// Writes the changes into the config, keeping the rest; the old file, if any, is kept
  /// beside it under a name of its own (returned). The new text is read back by the daemon's
  /// parser before anything is written.
  private func write(_ changes: [Change], over before: String?, to path: String) throws -> String? {
    var text = before ?? ""
    for change in changes {
      text = DockConfig.setting(change.key, in: change.section, to: change.value, text: text)
    }
    _ = try DockConfig.parse(text, file: path)
    // The file keeps its mode and group (root:puckalarm 0640 keeps puck-web reading it), and so
    // does the backup.
    var mode: mode_t = 0o644
    var group: gid_t?
    var backup: String?
    if let before {
      var info = stat()
      if stat(path, &info) == 0 {
        mode = info.st_mode & 0o7777
        group = info.st_gid
      }
      let (date, seconds) = now.utcDateAndTime
      let stamp = "\(date)T\(WallTime.clockText(secondsOfDay: seconds))Z".replacing(":", with: "")
      // Two runs in one second: the second backup gets a number, never the first's name.
      let base = path + ".before-setup-" + stamp
      var name = base
      var number = 1
      while access(name, F_OK) == 0 {
        number += 1
        name = base + "-\(number)"
      }
      try DurableFile.create(Array(before.utf8), at: name, mode: mode, group: group)
      backup = name
    }
    try DurableFile.write(Array(text.utf8), to: path, mode: mode, group: group)
    return backup
  }

  /// Waits (up to 10 s) for the reloaded daemon's reader to answer, so the check sees it.
  private func waitForReader() {
    for _ in 0..<50 {
      let reader = try? client.send(ControlRequest(.status)).status?.devices.first {
        $0.name == DockDevice.reader.rawValue
      }
      if reader?.state == .ok { return }
      usleep(200_000)
    }
  }

  /// A yes/no question; Enter is yes. With --yes it is answered yes; with no answer to read
  /// (standard input at its end) it is no, and nothing changes.
  func ask(_ question: String) -> Bool {
    if assumeYes { return true }
    say(question + " [Y/n] ", newline: false)
    guard let answer = readLine()?.lowercased().trimmingSuffix(" ") else { return false }
    return answer.isEmpty || answer == "y" || answer == "yes"
  }

  /// A line for the person: on standard output, or on standard error with --json, whose
  /// standard output is the report alone.
  func say(_ text: String, newline: Bool = true) {
    let line = text + (newline ? "\n" : "")
    if json {
      PuckCtl.printError(String(line.dropLast(newline ? 1 : 0)))
    } else {
      print(line, terminator: "")
      fflush(nil)
    }
  }

  private func finish(_ report: Report, _ code: ExitCode) -> ExitCode {
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      if let data = try? encoder.encode(report) { print(String(decoding: data, as: UTF8.self)) }
    }
    return code
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
      devices: Set(devices.filter { access(path($0), F_OK) == 0 }), osRelease: try text("/etc/os-release"))
  }

  /// The survey for a person: the board, each finding with its fix, then what comes next.
  static func render(_ survey: BoardSurvey) -> String {
    var lines = [
      "Board:        \(survey.model)" + (survey.board == .other ? "" : " (\(survey.board.rawValue))")
    ]
    if let release = survey.release { lines.append("Release:      \(release)") }
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
    if !survey.uartReady {
      lines.append(
        "  The UART is not ready for a reader: change what FIX names, reboot, and run 'sudo puckctl setup' "
          + "again (a reader on USB, I2C or SPI is tried meanwhile).")
    }
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
