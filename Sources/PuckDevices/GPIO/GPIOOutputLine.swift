import PuckCore

/// A requested GPIO output (the buzzer, the LED), driven on or off. `GPIOLineRequest` is the
/// real one; tests use a recording double, since no GPIO chip can run here.
///
/// Used by one thread at a time: the drivers call it only while holding their lock.
public protocol GPIOOutputLine: AnyObject {
  /// Where the line is, for status: "gpiochip0 line 18".
  var location: String { get }
  /// Drives the line to its active level (`on`) or its inactive level; `active_low` is applied
  /// by the request, so `on` is always "sounding" or "lit".
  func set(on: Bool) throws(GPIOError)
  /// Gives the line back to the kernel; it keeps its last level. Safe to call twice.
  func release()
}

/// How a driver gets its output line: `GPIOLineRequest.output` for real, a double in tests.
public typealias GPIOOutputOpener = @Sendable (GPIOLineSettings) throws(GPIOError) -> any GPIOOutputLine
