import PuckCore

/// A requested GPIO input (the dock button) that reports both edges. `GPIOLineRequest` is the
/// real one; tests use a scripted double that delivers edges.
///
/// Used by one thread only: the button's reader thread.
public protocol GPIOInputLine: AnyObject {
  /// Where the line is, for status: "gpiochip0 line 17".
  var location: String { get }
  /// Waits at most `timeout` for the next edge; nil when none came in time.
  func waitForEdge(timeout: Duration) throws(GPIOError) -> GPIOEdge?
  /// Gives the line back to the kernel. Safe to call twice.
  func release()
}

/// How the button gets its input line: `GPIOLineRequest.input` for real, a double in tests.
public typealias GPIOInputOpener = @Sendable (GPIOLineSettings) throws(GPIOError) -> any GPIOInputLine
