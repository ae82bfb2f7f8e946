import Dispatch
import Foundation
import Glibc

/// Runs one traced daemon per kill point, all at once, each on a thread of its own: a kill test
/// waits on real time (an alarm falling due, an answer window), and one after another would
/// take that many times as long. No `#expect` runs off the test's thread: each run returns what
/// it found, and the test judges the lot.
enum KillPoints {
  static func each<Found: Sendable>(
    _ invocations: ClosedRange<Int>, _ run: @escaping @Sendable (Int) throws -> Found
  ) -> [Int: Result<Found, HarnessError>] {
    let found = Results<Found>()
    let group = DispatchGroup()
    for invocation in invocations {
      group.enter()
      Thread {
        let result: Result<Found, HarnessError>
        do {
          result = .success(try run(invocation))
        } catch {
          result = .failure(HarnessError("\(error)"))
        }
        found.set(result, for: invocation)
        group.leave()
      }.start()
    }
    group.wait()
    return found.all
  }

  /// `each` over `first`, then over as many kill points again while every run so far was
  /// killed, up to three times as many: every kill point of the flow is reached even when a
  /// run makes more calls than usual (a loaded machine), and a flow that never ends is still
  /// found out by the judge, which wants one run past them all.
  static func untilOneGetsPast<Left: Sendable>(
    _ first: ClosedRange<Int>, _ run: @escaping @Sendable (Int) throws -> KillPointFound<Left>
  ) -> [Int: Result<KillPointFound<Left>, HarnessError>] {
    var found = each(first, run)
    var upper = first.upperBound
    func killed(_ result: Result<KillPointFound<Left>, HarnessError>) -> Bool {
      if case .success(.killed) = result { return true }
      return false
    }
    while found.values.allSatisfy(killed), upper < first.upperBound * 3 {
      let next = (upper + 1)...(upper + first.count)
      found.merge(each(next, run)) { earlier, _ in earlier }
      upper = next.upperBound
    }
    return found
  }

  /// Each kill point and what it found, in order, for a message.
  static func summary<Left: Sendable>(_ found: [Int: Result<KillPointFound<Left>, HarnessError>]) -> String {
    found.sorted { $0.key < $1.key }.map { invocation, result in
      switch result {
      case .success(let outcome): "#\(invocation): \(outcome)"
      case .failure(let error): "#\(invocation): \(error)"
      }
    }
    .joined(separator: "; ")
  }

  /// Ends one traced run. A daemon still running is let go by strace and read as it is
  /// (`left`); a killed one is read on disk (`onDisk`), restarted, given `settle` to act, and
  /// read again.
  static func outcome<Left: Sendable>(
    _ dock: DaemonHarness, strace: Process, onDisk: (DaemonHarness) throws -> Left,
    left: (DaemonHarness) throws -> Left, settle: (DaemonHarness) throws -> Void = { _ in }
  ) throws -> KillPointFound<Left> {
    if let pid = dock.process?.processIdentifier, dock.process?.isRunning == true {
      // The kernel detaches a dead tracer's tracees and they run on.
      kill(strace.processIdentifier, SIGKILL)
      strace.waitUntilExit()
      try waitUntil(timeout: 10, "strace has let go of puckd") { !TornWriteKillTests.isTraced(pid) }
      return .survived(try left(dock))
    }
    strace.waitUntilExit()
    try TornWriteKillTests.expectKilledByStrace(dock, at: "this kill point")
    dock.stop(signal: SIGKILL)
    let disk = try onDisk(dock)
    try dock.start()
    try settle(dock)
    return .killed(disk: disk, restarted: try left(dock))
  }
}

/// What one kill point left: on disk after the kill, then as the restarted daemon shows it; or,
/// when the run got past every traced call, as it went on.
enum KillPointFound<Left: Sendable>: Sendable, CustomStringConvertible {
  case killed(disk: Left, restarted: Left)
  case survived(Left)

  var description: String {
    switch self {
    case .killed(let disk, let restarted): "killed; on disk \(disk), after the restart \(restarted)"
    case .survived(let left): "not killed; \(left)"
    }
  }
}

/// What the runs found, by kill point. A lock rather than Synchronization's `Mutex`: Debian's
/// Swift 6.0.3 crashes compiling a `Mutex` of a generic parameter's type.
private final class Results<Found: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [Int: Result<Found, HarnessError>] = [:]

  func set(_ result: Result<Found, HarnessError>, for invocation: Int) {
    lock.withLock { values[invocation] = result }
  }

  var all: [Int: Result<Found, HarnessError>] { lock.withLock { values } }
}
