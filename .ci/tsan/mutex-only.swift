// Two threads update one value, every access inside Synchronization's Mutex.withLock: there is
// no data race. ThreadSanitizer (Swift 6.3 on Linux) still reports "Swift access race" here (in
// most runs: it needs the two accesses close together in its history),
// because the lock's atomics live in libswiftSynchronization, which is not instrumented, so TSan
// sees no ordering between the two closures. .ci/check-thread-sanitizer compiles this and
// mutex-and-pthread.swift to check that premise before it applies .ci/tsan/suppressions.txt.
import Glibc
import Synchronization

struct State {
  var changes = 0
  var level = false
}

final class Shared: Sendable {
  private let state = Mutex(State())
  func bump() { state.withLock { $0.changes += 1 } }
  func bumpAndRead() -> Int {
    state.withLock {
      $0.changes += 1
      return $0.changes
    }
  }
}

let shared = Shared()
// Two different closures, one per thread (TSan does not report two threads running the same one).
func bumping(_: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  for _ in 0..<20000 { shared.bump() }
  return nil
}
func reading(_: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  for _ in 0..<20000 { _ = shared.bumpAndRead() }
  return nil
}
var first = pthread_t()
var second = pthread_t()
pthread_create(&first, nil, bumping, nil)
pthread_create(&second, nil, reading, nil)
pthread_join(first, nil)
pthread_join(second, nil)
print(shared.bumpAndRead())
