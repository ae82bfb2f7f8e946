import Foundation
import Testing

/// `puckd --check-config` and `puckd --buzzer-off`, run as processes.
@Suite("puckd maintenance flags")
struct MaintenanceFlagTests {
  private func config(_ text: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "puckd-\(UUID().uuidString.prefix(8)).conf"
    ).path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test("--check-config accepts a valid file and a missing one, and names file:line for a bad one")
  func checkConfig() throws {
    let good = try config("[enforcement]\nretry_delay = 30s\n")
    #expect(try run("puckd", ["--config", good, "--check-config"]).status == 0)
    #expect(try run("puckd", ["--config", "/nonexistent/puckd.conf", "--check-config"]).status == 0)
    let bad = try config("[enforcement]\n\nring_timeout = forever\n")
    let result = try run("puckd", ["--config", bad, "--check-config"])
    #expect(result.status == 78)
    #expect(result.stderr.contains("\(bad):3:"))
    #expect(result.stderr.hasPrefix("<3>"))
  }

  @Test("--buzzer-off does nothing without a [buzzer] section and says which chip it cannot open")
  func buzzerOff() throws {
    let none = try config("[audio]\ndevice = default\n")
    #expect(try run("puckd", ["--config", none, "--buzzer-off"]).status == 0)
    let missing = try config("[buzzer]\nchip = gpiochip42\nline = 18\n")
    let result = try run("puckd", ["--config", missing, "--buzzer-off"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("gpiochip42"))
  }
}
