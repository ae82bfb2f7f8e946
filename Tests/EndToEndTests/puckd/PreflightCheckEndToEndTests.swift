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
    #expect(
      found["timer"]?.hasPrefix("ok — the kernel holds the alarm timer for") == true, "\(result.stdout)")
    // The clock may or may not be synchronised where this runs; the exit status follows it.
    let clockOK = found["clock"]?.hasPrefix("ok") == true
    #expect(result.status == (clockOK ? 0 : 1), "\(result.stdout)")

    let json = try dock.ctl("check", "--json")
    let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
    let check = try #require(object?["check"] as? [String: Any])
    #expect(check["trigger"] as? String == "request")
    #expect((check["parts"] as? [[String: Any]])?.count == 7)
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
}
