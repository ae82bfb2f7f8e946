import Foundation
import Glibc
import PN532Emulator
import Testing

private let paired = "04:A2:3B:11:22:33:44"

/// Issue 13 item 1 end to end: `puckctl check` against the real daemon, with the real libnfc
/// reader on the emulated PN532 and real ALSA devices, and with each part broken for real.
@Suite("pre-flight check, end to end", .serialized)
struct PreflightCheckEndToEndTests {
  /// The part lines `puckctl check` printed, by part name.
  private func parts(_ output: String) -> [String: String] {
    var parts: [String: String] = [:]
    for line in output.split(separator: "\n") {
      let text = line.trimmingCharacters(in: .whitespaces)
      guard let colon = text.firstIndex(of: ":"), text.hasPrefix("pre-flight") == false else { continue }
      parts[String(text[..<colon])] = String(text[text.index(after: colon)...]).trimmingCharacters(
        in: .whitespaces)
    }
    return parts
  }

  @Test(
    "reader on the emulated PN532, the null PCM, a root-only pairing: those parts pass, the timer is read back"
  )
  func workingPartsPass() throws {
    let link = FileManager.default.temporaryDirectory.appendingPathComponent(
      "pn532-\(UUID().uuidString.prefix(8))"
    ).path
    let emulator = try PN532Emulator(linkPath: link)
    defer { emulator.shutdown() }
    let dock = try DaemonHarness(
      simulate: false, config: "[reader]\ndevice = pn532_uart:\(link)\n[audio]\ndevice = null\n", audio: false
    )
    try dock.writePairing(paired)
    try dock.start()
    try waitUntil(timeout: 10, "the reader is ok") {
      let devices = (try? dock.status()["devices"] as? [[String: Any]]) ?? []
      return devices.contains { $0["name"] as? String == "reader" && $0["state"] as? String == "ok" }
    }
    _ = try dock.addAlarm(inSeconds: 3_600)
    let result = try dock.ctl("check")
    let found = parts(result.stdout)
    #expect(found["reader"]?.hasPrefix("ok") == true, "\(result.stdout)")
    #expect(found["pairing"]?.hasPrefix("ok") == true, "\(result.stdout)")
    #expect(found["audio"]?.hasPrefix("ok — null opens") == true, "\(result.stdout)")
    // A device with no mixer at all is said to be one, not failed (docs/DESIGN.md V12).
    #expect(found["mixer"]?.hasPrefix("ok — null has no mixer") == true, "\(result.stdout)")
    #expect(
      found["timer"]?.hasPrefix("ok — the kernel holds the alarm timer for") == true, "\(result.stdout)")
    // The clock may or may not be synchronised where this runs; the exit status follows it.
    let clockOK = found["clock"]?.hasPrefix("ok") == true
    #expect(result.status == (clockOK ? 0 : 1), "\(result.stdout)")

    let json = try dock.ctl("check", "--json")
    let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
    let check = try #require(object?["check"] as? [String: Any])
    #expect(check["trigger"] as? String == "request")
    #expect((check["parts"] as? [[String: Any]])?.count == 8)
  }

  @Test(
    "reader missing, audio device missing, pairing file loosened: exit 1, a FAILED line for each, status says so"
  )
  func brokenPartsFail() throws {
    let dock = try DaemonHarness(
      simulate: false,
      config: "[reader]\ndevice = pn532_uart:/nonexistent/puck-tty\n[audio]\ndevice = puck_no_such_pcm\n",
      audio: false)
    try dock.writePairing(paired)
    try dock.start()
    try waitUntil(timeout: 10, "the check at start is logged") {
      dock.log.contains("<4>pre-flight check (start) FAILED")
    }
    #expect(chmod(dock.stateDirectory + "/pairing.json", 0o644) == 0)
    let result = try dock.ctl("check")
    #expect(result.status == 1)
    let found = parts(result.stdout)
    #expect(found["reader"]?.hasPrefix("FAILED") == true, "\(result.stdout)")
    #expect(found["audio"]?.contains("puck_no_such_pcm") == true, "\(result.stdout)")
    #expect(found["audio"]?.hasPrefix("FAILED") == true, "\(result.stdout)")
    #expect(found["pairing"]?.hasPrefix("FAILED") == true, "\(result.stdout)")
    #expect(found["pairing"]?.contains("still ends a wake-up") == true, "\(result.stdout)")
    let status = try dock.ctl("status")
    #expect(status.stdout.contains("Check:    FAILED "), "\(status.stdout)")
    #expect(
      status.stdout.contains("(request): reader FAILED, pairing FAILED, audio FAILED, sound ok"),
      "\(status.stdout)")
    #expect(status.stdout.contains("the last pre-flight check failed: reader, pairing, audio"))
  }

  @Test(
    "a buzzer on a gpiochip that does not exist: status and check show it FAILED with the next step, never absent; it costs neither the check nor protection"
  )
  func configuredBuzzerOnAMissingChip() throws {
    let link = FileManager.default.temporaryDirectory.appendingPathComponent(
      "pn532-\(UUID().uuidString.prefix(8))"
    ).path
    let emulator = try PN532Emulator(linkPath: link)
    defer { emulator.shutdown() }
    let dock = try DaemonHarness(
      simulate: false,
      config:
        "[reader]\ndevice = pn532_uart:\(link)\n[audio]\ndevice = null\n[buzzer]\nchip = gpiochip99\nline = 22\n",
      audio: false)
    try dock.writePairing(paired)
    try dock.start()
    try waitUntil(timeout: 10, "the reader is ok") {
      let devices = (try? dock.status()["devices"] as? [[String: Any]]) ?? []
      return devices.contains { $0["name"] as? String == "reader" && $0["state"] as? String == "ok" }
    }
    _ = try dock.addAlarm(inSeconds: 3_600)

    // status --json: the buzzer is a fault with its next step, a warning says so, no reason.
    let json = try dock.status()
    let devices = try #require(json["devices"] as? [[String: Any]])
    let buzzer = try #require(devices.first { $0["name"] as? String == "buzzer" })
    #expect(buzzer["state"] as? String == "fault", "never absent: \(buzzer)")
    #expect(
      (buzzer["detail"] as? String)?.hasPrefix("cannot open gpiochip99: No such file or directory") == true)
    let next = try #require(buzzer["next"] as? String)
    // Which chips there are depends on the machine: the step names the missing one either way.
    #expect(next.contains("no /dev/gpiochip99"), "\(next)")
    #expect(next.contains("[buzzer]") && next.contains(dock.configPath), "\(next)")
    let warnings = try #require(json["warnings"] as? [[String: Any]])
    #expect(warnings.first?["code"] as? String == "part-failed")
    #expect(warnings.first?["device"] as? String == "buzzer")
    #expect(warnings.first?["next"] as? String == next)
    // Only the clock may stand against protection where this runs (unsynchronised, it also
    // fails the check at start); never the buzzer.
    let reasons = json["reasonCodes"] as? [[String: Any]] ?? []
    for reason in reasons {
      switch reason["code"] as? String {
      case "clock-not-synchronised": break
      case "check-failed": #expect(reason["parts"] as? [String] == ["clock"], "\(reasons)")
      default: Issue.record("a reason against protection: \(reason)")
      }
    }

    // puckctl status: the warning and its next step at the top, the part FAILED in the list.
    let status = try dock.ctl("status")
    let lines = status.stdout.split(separator: "\n").map(String.init)
    let protected = json["protected"] as? Bool == true
    #expect(lines.first == (protected ? "PROTECTED, with a WARNING:" : "NOT PROTECTED"), "\(status.stdout)")
    let warning = try #require(
      lines.firstIndex {
        $0.hasPrefix("  ! buzzer FAILED (the alarm rings on the audio alone): cannot open gpiochip99")
      },
      "\(status.stdout)")
    #expect(lines[warning + 1] == "    next: \(next)")
    let nextAlarm = try #require(lines.firstIndex { $0.hasPrefix("Next:") })
    #expect(warning < nextAlarm, "among the top lines")
    #expect(status.stdout.contains("Buzzer:   FAILED — cannot open gpiochip99"), "\(status.stdout)")
    #expect(!status.stdout.contains("Buzzer:   absent"))

    // puckctl check: the buzzer FAILED with its next step; the exit status follows the clock alone.
    let result = try dock.ctl("check")
    let found = parts(result.stdout)
    #expect(found["buzzer"]?.hasPrefix("FAILED — cannot open gpiochip99") == true, "\(result.stdout)")
    #expect(result.stdout.contains("\n      next: \(next)\n"), "\(result.stdout)")
    let clockOK = found["clock"]?.hasPrefix("ok") == true
    #expect(result.status == (clockOK ? 0 : 1), "\(result.stdout)")
    #expect(
      result.stdout.hasPrefix(
        clockOK
          ? "pre-flight check passed, with a WARNING: buzzer FAILED (the alarm rings without it"
          : "pre-flight check FAILED:"), "\(result.stdout)")
    let checkJSON = try dock.ctl("check", "--json")
    let object = try JSONSerialization.jsonObject(with: Data(checkJSON.stdout.utf8)) as? [String: Any]
    let check = try #require(object?["check"] as? [String: Any])
    let part = try #require((check["parts"] as? [[String: Any]])?.first { $0["name"] as? String == "buzzer" })
    #expect(part["ok"] as? Bool == false)
    #expect(part["severity"] as? String == "warning")
    #expect(part["next"] as? String == next)
    // The log says it once at start, with the step.
    #expect(dock.log.contains("buzzer: cannot open gpiochip99: No such file or directory"), "\(dock.log)")
    #expect(dock.log.contains("— next: \(next)"))
  }
}
