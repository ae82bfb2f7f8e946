import Foundation
import Glibc
import Testing

private let paired = "04:A2:3B:11:22:33:44"

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
}
