import PuckCore
import PuckSystem

extension TimerHandle {
  /// Arms a wall-clock timer for `instant`; PuckSystem's timers know Unix seconds, not the
  /// core's `Instant`, so the conversion lives here on the daemon's side.
  func arm(at instant: Instant) throws(SystemError) {
    try arm(atUnixSeconds: instant.unixSeconds)
  }
}
