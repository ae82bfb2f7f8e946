// mutex-only.swift with a pthread mutex taken around every withLock as well. TSan intercepts
// pthread_mutex_lock/unlock, so it sees the ordering, and reports nothing: the only difference
// from mutex-only.swift is a lock TSan can see.
import Glibc
import Synchronization

struct State {
  var changes = 0
  var level = false
}

nonisolated(unsafe) var visible = pthread_mutex_t()

final class Shared: Sendable {
  private let state = Mutex(State())
  func bump() {
    pthread_mutex_lock(&visible)
    defer { pthread_mutex_unlock(&visible) }
    state.withLock { $0.changes += 1 }
  }
  func bumpAndRead() -> Int {
    pthread_mutex_lock(&visible)
    defer { pthread_mutex_unlock(&visible) }
    return state.withLock {
      $0.changes += 1
      return $0.changes
    }
  }
}

pthread_mutex_init(&visible, nil)
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
