import Foundation
import Glibc
import Testing

/// `sudo puckctl override` against the real daemon: it counts down `override_delay` with the
/// ring going on, then closes the wake-up; Ctrl-C during the countdown leaves it open.
@Suite("override with a delay, end to end", .serialized)
struct OverrideEndToEndTests {
  @Test("puckctl override waits the delay, says so, then closes; the client killed meanwhile keeps it open")
  func countdownAndCtrlC() throws {
    let dock = try DaemonHarness(config: "[enforcement]\noverride_delay = 3s\n", audio: false)
    try dock.writePairing("04:A2:3B:11:22:33:44")
    try dock.start()
    try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 15, "the alarm rings") { try dock.isRinging() }

    let started = Date()
    let override = try dock.ctl("override", "--yes")
    #expect(override.status == 0, "\(override.stderr)")
    #expect(override.stdout.contains("closes WITHOUT a scan"), "\(override.stdout)")
    #expect(override.stdout.contains("closed 1 wake-up WITHOUT a scan"), "\(override.stdout)")
    #expect(Date().timeIntervalSince(started) >= 2.5, "it waited the delay")
    #expect(try dock.guards().isEmpty)

    // Again, and Ctrl-C during the countdown.
    try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 15, "the second alarm rings") { try dock.isRinging() }
    let process = Process()
    process.executableURL = Binaries.url("puckctl")
    process.arguments = ["--socket", dock.socketPath, "override", "--yes"]
    process.standardOutput = FileHandle.nullDevice
    try process.spawn()
    try waitUntil(timeout: 10, "the countdown is shown in status") {
      (try dock.status()["overrideAt"]) != nil
    }
    // Ctrl-C's SIGINT would do, but the test runner's children inherit its blocked signals;
    // what the daemon sees is the same either way: the client's end of the socket closes.
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    try waitUntil(timeout: 5, "the daemon sees the client go") { (try dock.status()["overrideAt"]) == nil }
    sleep(4)
    #expect(
      try dock.guards().count == 1,
      "Ctrl-C left the wake-up open: \(dock.log.split(separator: "\n").filter { $0.contains("verride") })")
    let status = try dock.ctl("status")
    #expect(status.stdout.contains("Override: wake-ups closed WITHOUT a scan"), "\(status.stdout)")
  }
}
