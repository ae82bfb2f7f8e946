import Foundation
import Testing

/// Polls `condition` until it holds, for up to `timeout` seconds, for what runs on threads of its
/// own (the GPIO lines' timing threads, a device's reports); records an issue and throws when it
/// never does.
func waitFor(_ what: String, timeout: Double = 6, _ condition: () throws -> Bool) throws {
  let deadline = Date().addingTimeInterval(timeout)
  while Date() < deadline {
    if try condition() { return }
    usleep(10_000)
  }
  Issue.record("timed out waiting for \(what)")
  throw CancellationError()
}
