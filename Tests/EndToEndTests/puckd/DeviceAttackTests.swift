import Foundation
import Glibc
import PN532Emulator
import Testing

private let paired = "04:A2:3B:11:22:33:44"
private let pairedBytes: [UInt8] = [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44]
private let stickerBytes: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]

/// puckd with the real libnfc against an emulated PN532 on a pseudo-terminal.
private final class EmulatedReaderDock {
  let dock: DaemonHarness
  let emulator: PN532Emulator
  let link: String

  init(audio: Bool = false, extraConfig: String = "") throws {
    link =
      FileManager.default.temporaryDirectory.appendingPathComponent("pn532-\(UUID().uuidString.prefix(8))")
      .path
    emulator = try PN532Emulator(linkPath: link)
    dock = try DaemonHarness(
      simulate: false, config: "[reader]\ndevice = pn532_uart:\(link)\n" + extraConfig, audio: audio)
  }

  deinit {
    emulator.shutdown()
  }

  var reader: [String: Any]? {
    let devices = (try? dock.status()["devices"] as? [[String: Any]]) ?? []
    return devices.first { $0["name"] as? String == "reader" }
  }

  func start() throws {
    try dock.start()
    try waitUntil(timeout: 10, "the reader is ok") { self.reader?["state"] as? String == "ok" }
  }

  /// Waits until the daemon has polled the emulator `count` more times.
  func waitForPolls(_ count: Int, timeout: Double = 10) throws {
    let start = emulator.count(of: .inListPassiveTarget)
    try waitUntil(timeout: timeout, "\(count) polls") {
      self.emulator.count(of: .inListPassiveTarget) >= start + count
    }
  }
}

/// Issue 8 items 10, 11 and 14, as attacks on a real `puckd`: real ALSA (PulseAudio null
/// sinks, missing devices), the real libnfc against an emulated PN532, real signals.
@Suite("puckd device attacks", .serialized)
struct DeviceAttackTests {
  @Test("audio fails mid-ring with no buzzer: the log says at the highest level that nothing is audible")
  func nothingAudibleIsSaidLoudly() throws {
    let dock = try DaemonHarness(
      config: "[audio]\ndevice = puck_no_such_pcm\n[enforcement]\nretry_delay = 60s\n", audio: false)
    try dock.writePairing(paired)
    try dock.start()
    try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    try waitUntil(timeout: 5, "the audio fault is logged") {
      dock.log.contains("audio device puck_no_such_pcm failed")
    }
    let faultLines = dock.log.split(separator: "\n").filter {
      $0.contains("audio device puck_no_such_pcm failed")
    }
    #expect(!dock.log.contains("(buzzer)"), "there is no buzzer to carry the ring")
    #expect(faultLines.allSatisfy { $0.hasPrefix("<2>") }, "\(faultLines)")
    #expect(faultLines.allSatisfy { $0.contains("NOTHING is audible") }, "\(faultLines)")
  }

  /// Issue 8 item 11: the puck lies on the reader next to a second sticker when the alarm
  /// fires; anticollision answers one, then the other, poll after poll. That must never count
  /// as the puck being presented again; lifting it for a while and presenting it must.
  @Test(
    "a puck lying beside a sticker, answered in turn, does not end the wake-up; lifting and presenting it does"
  )
  func twoTagsInTheFieldAttack() throws {
    let rig = try EmulatedReaderDock(
      extraConfig: "[audio]\ndevice = null\n[enforcement]\nretry_delay = 60s\n")
    try explained(by: rig.dock) { try twoTagsInTheField(rig) }
  }

  private func twoTagsInTheField(_ rig: EmulatedReaderDock) throws {
    try rig.dock.writePairing(paired)
    try rig.start()
    rig.emulator.present(uid: pairedBytes)
    rig.emulator.add(uid: stickerBytes)
    try rig.dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try rig.dock.isRinging() }
    try waitUntil(timeout: 5, "puckd sees the lying puck") {
      rig.dock.log.contains("was already on the reader")
    }
    // Both tags answer in turn for a few seconds: nobody lifted the puck.
    try rig.waitForPolls(30)
    #expect(try !rig.dock.guards().isEmpty, "alternating answers ended the wake-up")
    #expect(try rig.dock.isRinging())

    // Lifted for a settled interval (the sticker stays), then presented again: that is a scan.
    rig.emulator.remove(uid: pairedBytes)
    try rig.waitForPolls(15)
    #expect(try !rig.dock.guards().isEmpty)
    rig.emulator.add(uid: pairedBytes)
    try waitUntil(timeout: 5, "the wake-up is closed") { try rig.dock.guards().isEmpty }
  }

  /// Runs `body`; when it throws, records the daemon's log with the error, so a failure says
  /// what puckd did.
  private func explained(by dock: DaemonHarness, _ body: () throws -> Void) throws {
    do {
      try body()
    } catch {
      Issue.record("\(error)\n--- puckd log ---\n\(dock.log)")
    }
  }
}
