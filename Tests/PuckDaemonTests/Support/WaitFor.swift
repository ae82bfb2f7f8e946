import Foundation
import Testing

/// Polls `condition` until it holds, for up to `timeout` seconds, for what runs on threads of its
/// own (the GPIO lines' timing threads, a device's reports); records an issue and throws when it
/// never does.
func waitFor(_ what: String, timeout: Double = 6, _ condition: () throws -> Bool) throws {
  // Longer under a sanitizer (`PUCK_SANITIZER`, set by the CI steps): this only detects a hang.
  let slack: Double = ProcessInfo.processInfo.environment["PUCK_SANITIZER"] != nil ? 4 : 1
  let deadline = Date().addingTimeInterval(timeout * slack)
  while Date() < deadline {
    if try condition() { return }
    usleep(10_000)
  }
  Issue.record("timed out waiting for \(what)")
  throw CancellationError()
}
