import Dispatch
import Foundation
import Synchronization

/// Runs one traced daemon per kill point, all at once, each on a thread of its own: a kill test
/// waits on real time (an alarm falling due, an answer window), and one after another would
/// take that many times as long. No `#expect` runs off the test's thread: each run returns what
/// it found, and the test judges the lot.
enum KillPoints {
  static func each<Found: Sendable>(
    _ invocations: ClosedRange<Int>, _ run: @escaping @Sendable (Int) throws -> Found
  ) -> [Int: Result<Found, HarnessError>] {
    let found = Mutex<[Int: Result<Found, HarnessError>]>([:])
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
        found.withLock { $0[invocation] = result }
        group.leave()
      }.start()
    }
    group.wait()
    return found.withLock { $0 }
  }
}
