// Test doubles for the GPIO seam (STYLE: doubles only where the real part cannot run here —
// a GPIO chip). Shared by the device tests and the daemon tests.
import Glibc
import PuckDevices
import PuckSystem
import Synchronization

/// The recorded lines' clock (the loop's is PuckSystem's `ManualClock`): it moves only when the
/// test says so. Starts at an arbitrary non-zero instant, so nothing can pass by accident of
/// counting from zero.
public final class ManualLineClock: MonotonicClock {
  /// A clock at `origin`.
  public init() {}

  public static let origin = MonotonicInstant(nanoseconds: 7_000_000_000_000)
  private let current = Mutex(ManualLineClock.origin)

  public func now() -> MonotonicInstant { current.withLock { $0 } }

  /// Time since the clock was made.
  public var elapsed: Duration { now() - Self.origin }

  public func advance(by duration: Duration) { current.withLock { $0 = $0 + duration } }

  /// Moves to `milliseconds` after the origin.
  public func set(milliseconds: Int64) { current.withLock { $0 = Self.origin + .milliseconds(milliseconds) } }

  /// The instant `milliseconds` after the origin.
  public static func at(_ milliseconds: Int64) -> MonotonicInstant { origin + .milliseconds(milliseconds) }
}

/// One `set(on:)` as the double saw it: when (milliseconds on the manual clock) and which level.
public struct Drive: Hashable, Sendable, CustomStringConvertible {
  public let milliseconds: Int64
  public let on: Bool

  public init(_ milliseconds: Int64, _ on: Bool) {
    self.milliseconds = milliseconds
    self.on = on
  }

  public var description: String { "\(milliseconds)ms:\(on ? "on" : "off")" }
}

/// The output double: records every `set(on:)` with the manual clock's time, can be told to
/// fail, and records its release. Opened through `opener`, which counts the opens.
public final class RecordingOutputLine: GPIOOutputLine, Sendable {
  private struct Record {
    public var drives: [Drive] = []
    var released = false
    var failure: GPIOError?
    var openFailure: GPIOError?
    var opens = 0
  }

  public let clock: ManualLineClock
  public let location = "testchip line 18"
  private let record = Mutex(Record())

  public init(clock: ManualLineClock) {
    self.clock = clock
  }

  public var drives: [Drive] { record.withLock { $0.drives } }
  public var released: Bool { record.withLock { $0.released } }
  public var opens: Int { record.withLock { $0.opens } }
  /// The level last driven; nil before any.
  public var level: Bool? { drives.last?.on }

  /// Makes `set(on:)` throw `error` (nil: succeed again).
  public func failSets(with error: GPIOError?) { record.withLock { $0.failure = error } }
  /// Makes opening throw `error` (nil: succeed again).
  public func failOpens(with error: GPIOError?) { record.withLock { $0.openFailure = error } }

  public func set(on: Bool) throws(GPIOError) {
    let failure = record.withLock { $0.failure }
    if let failure { throw failure }
    let milliseconds = clock.elapsed.nanoseconds / 1_000_000
    record.withLock { $0.drives.append(Drive(milliseconds, on)) }
  }

  public func release() { record.withLock { $0.released = true } }

  /// An opener handing out this line, or throwing what `failOpens` set.
  public var opener: GPIOOutputOpener {
    { [self] _ throws(GPIOError) in
      let failure = record.withLock { state -> GPIOError? in
        state.opens += 1
        return state.openFailure
      }
      if let failure { throw failure }
      record.withLock { $0.released = false }
      return self
    }
  }
}

/// The input double: hands out scripted edges, one per wait. When the script is empty it
/// answers "no edge" at once, unless `blocking`, in which case it waits (up to the timeout) for
/// edges pushed later by the test, as the real line waits for the kernel.
public final class ScriptedInputLine: GPIOInputLine, Sendable {
  private struct Script {
    var edges: [GPIOEdge] = []
    var failure: GPIOError?
    var released = false
    var waits = 0
  }

  public let location = "testchip line 17"
  public let blocking: Bool
  private let script = Mutex(Script())

  public init(_ edges: [GPIOEdge] = [], blocking: Bool = false) {
    self.blocking = blocking
    script.withLock { $0.edges = edges }
  }

  public var released: Bool { script.withLock { $0.released } }
  public var waits: Int { script.withLock { $0.waits } }

  public func push(_ edges: [GPIOEdge]) { script.withLock { $0.edges += edges } }
  public func failReads(with error: GPIOError?) { script.withLock { $0.failure = error } }

  public func waitForEdge(timeout: Duration) throws(GPIOError) -> GPIOEdge? {
    let deadline = MonotonicInstant.now() + timeout
    while true {
      let (edge, failure) = script.withLock { script -> (GPIOEdge?, GPIOError?) in
        script.waits += 1
        if let failure = script.failure { return (nil, failure) }
        return (script.edges.isEmpty ? nil : script.edges.removeFirst(), nil)
      }
      if let failure { throw failure }
      if edge != nil || !blocking || MonotonicInstant.now() >= deadline { return edge }
      // Stands in for the kernel's wait on the reader thread; the test itself never sleeps.
      usleep(1000)
    }
  }

  public func release() { script.withLock { $0.released = true } }

  public var opener: GPIOInputOpener { { [self] _ throws(GPIOError) in self } }
}

/// An edge `milliseconds` after the manual clock's origin.
public func edge(_ kind: GPIOEdge.Kind, _ milliseconds: Int64) -> GPIOEdge {
  GPIOEdge(kind, at: ManualLineClock.at(milliseconds))
}

/// Counts what a `@Sendable` callback delivered.
public final class Inbox<Value: Sendable>: Sendable {
  private let values = Mutex<[Value]>([])

  /// An empty inbox.
  public init() {}
  public var all: [Value] { values.withLock { $0 } }
  public func post(_ value: Value) { values.withLock { $0.append(value) } }
}
