import Foundation
import Glibc

/// The built binaries, found next to the test bundle in `.build/<config>/`.
enum Binaries {
  static var directory: URL {
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var dir = exe.deletingLastPathComponent()
    // The test runner lives in `.build/debug/` (or `.build/debug/X.xctest/...`): climb to the
    // folder that has puckctl.
    while dir.path != "/"
      && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("puckctl").path)
    {
      dir = dir.deletingLastPathComponent()
    }
    return dir
  }

  static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }
}

/// What a finished process printed and returned.
struct ProcessResult {
  var status: Int32
  var stdout: String
  var stderr: String
}

/// Runs a binary to completion with the given environment additions and returns its output.
func run(
  _ name: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil
) throws -> ProcessResult {
  let process = Process()
  process.executableURL = Binaries.url(name)
  process.arguments = arguments
  var env = ProcessInfo.processInfo.environment
  for (key, value) in environment { env[key] = value }
  process.environment = env
  return try process.runToCompletion(stdin: stdin)
}

/// Whether the test run is built with a sanitizer (`.ci/check-sanitizers` sets
/// `PUCK_SANITIZER`): memory figures then say nothing about the daemon itself.
enum Sanitized {
  static var isOn: Bool { ProcessInfo.processInfo.environment["PUCK_SANITIZER"] != nil }

  /// How much longer a wait may take before it counts as never: an instrumented daemon starts
  /// and answers several times slower (ThreadSanitizer most), and CI runs the sanitized suite
  /// beside other work. A timeout here only detects a hang; no test measures time with it.
  static var slack: Double { isOn ? 4 : 1 }

  /// `seconds` with the slack, as `timeout(1)` takes it: a limit that only detects a hang.
  static func seconds(_ seconds: Int) -> String { String(Int(Double(seconds) * slack)) }
}
