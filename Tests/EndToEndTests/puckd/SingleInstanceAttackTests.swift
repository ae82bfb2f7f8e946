import Foundation
import Glibc
import Testing

/// A second `puckd` on the same state directory or socket (issue 8, item 12): it must refuse
/// to start and leave the live daemon, its socket and its files alone.
@Suite("puckd single instance")
struct SingleInstanceAttackTests {
  /// Starts a second puckd with `arguments` and waits (bounded) for it to exit.
  private func runSecond(_ arguments: [String]) throws -> (status: Int32?, stderr: String) {
    let process = Process()
    process.executableURL = Binaries.url("puckd")
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["LIBNFC_AUTO_SCAN"] = "false"
    environment.removeValue(forKey: "NOTIFY_SOCKET")
    process.environment = environment
    let err = try CapturedOutput()
    process.standardError = err.handle
    process.standardOutput = FileHandle.nullDevice
    try process.spawn()
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning && Date() < deadline { usleep(50_000) }
    if process.isRunning {
      // It took over instead of refusing: stop it the way a person would, which (before the
      // lock) also removed the first daemon's socket.
      kill(process.processIdentifier, SIGTERM)
      process.waitUntilExit()
      return (nil, err.text)
    }
    return (process.terminationStatus, err.text)
  }

  @Test("a second puckd on the same state directory refuses and leaves the live daemon's socket alone")
  func sameStateDirectory() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    #expect(try dock.ctl("alarm", "add", "06:30", "--days", "weekdays").status == 0)
    let otherSocket = dock.directory.appendingPathComponent("second.sock").path
    let second = try runSecond([
      "--simulate", "--config", dock.configPath, "--state-dir", dock.stateDirectory, "--socket", otherSocket,
    ])
    #expect(second.status != nil && second.status != 0, "the second puckd kept running")
    #expect(second.stderr.contains("already"), "no clear message: \(second.stderr)")
    #expect(!FileManager.default.fileExists(atPath: otherSocket))
    // The first daemon is untouched and still owns its state.
    #expect(try dock.ctl("status").status <= 1)
    #expect(try dock.ctl("alarm", "list").stdout.contains("06:30"))
  }

  @Test("a second puckd on the same socket refuses instead of taking the socket over")
  func sameSocket() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    let otherState = dock.directory.appendingPathComponent("second-state").path
    let second = try runSecond([
      "--simulate", "--config", dock.configPath, "--state-dir", otherState, "--socket", dock.socketPath,
    ])
    #expect(second.status != nil && second.status != 0, "the second puckd kept running")
    #expect(second.stderr.contains("already"), "no clear message: \(second.stderr)")
    #expect(FileManager.default.fileExists(atPath: dock.socketPath))
    #expect(try dock.ctl("status").status <= 1)
  }
}
