import Dispatch
import Foundation

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
