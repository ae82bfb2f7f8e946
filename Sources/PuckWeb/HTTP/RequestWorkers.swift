import Glibc
import PuckSystem
import Synchronization

/// The threads that answer requests, off libmicrohttpd's polling thread: a request waits here
/// for puckd (the pre-flight check up to 5 s for the devices' answers, any request up to
/// `SocketDockLink.timeout` when puckd is stuck) while the polling thread goes on reading and
/// answering other connections.
///
/// A fixed number of threads, started with the server, so the process stays within its unit's
/// `TasksMax` whatever the clients do; a request that finds them all busy waits its turn in a
/// queue (at most one per connection, and connections are bounded).
///
/// Synchronisation: `Sendable` without `@unchecked`: the queue and the stopping flag are behind
/// one `Mutex`, the wake-ups are a POSIX semaphore (`Semaphore`), and the thread ids are set
/// once in `init` and taken once, to be joined, by `stop()`, under their own lock.
final class RequestWorkers: Sendable {
  /// One request's work. `stopping`: the server is stopping and the work should answer at
  /// once without asking puckd (only queued work that had not started is told so).
  typealias Job = @Sendable (_ stopping: Bool) -> Void

  private struct Queue: Sendable {
    var jobs: [Job] = []
    var stopping = false
  }

  /// What the threads share with the owner: kept apart from `RequestWorkers` so a thread never
  /// holds its owner alive.
  private final class Shared: Sendable {
    let queue = Mutex(Queue())
    /// Counts queued jobs, and one extra wake-up per thread at `stop()`.
    let wakeUps = Semaphore()

    /// Runs jobs until stopped with nothing left to do.
    func work() {
      while true {
        wakeUps.wait()
        let next: (job: Job?, stopping: Bool) = queue.withLock { queue in
          guard !queue.jobs.isEmpty else { return (nil, queue.stopping) }
          return (queue.jobs.removeFirst(), queue.stopping)
        }
        guard let job = next.job else {
          if next.stopping { return }
          continue
        }
        job(next.stopping)
      }
    }
  }

  private let shared = Shared()
  /// Each joined once, by `stop()`.
  private let threads = Mutex<[pthread_t]>([])

  /// Starts `count` threads; throws when none at all could be started.
  init(count: Int) throws(HTTPServerError) {
    var started: [pthread_t] = []
    for _ in 0..<count {
      let shared = self.shared
      if let thread = try? SystemThread.start({ shared.work() }) { started.append(thread) }
    }
    guard !started.isEmpty else {
      throw HTTPServerError(description: "cannot start a thread to answer requests")
    }
    threads.withLock { $0 = started }
  }

  /// Queues `job` for the next free thread; false, and nothing queued, once stopping.
  func submit(_ job: @escaping Job) -> Bool {
    let queued = shared.queue.withLock { queue -> Bool in
      guard !queue.stopping else { return false }
      queue.jobs.append(job)
      return true
    }
    if queued { shared.wakeUps.post() }
    return queued
  }

  /// Takes no more jobs, lets the running ones finish and the queued ones answer (told
  /// `stopping`), and joins the threads. Safe to call more than once.
  func stop() {
    shared.queue.withLock { $0.stopping = true }
    let taken = threads.withLock { threads -> [pthread_t] in
      defer { threads = [] }
      return threads
    }
    for _ in taken { shared.wakeUps.post() }
    for thread in taken { pthread_join(thread, nil) }
  }
}

/// A POSIX semaphore (`sem_init`, `sem_post`, `sem_wait`), the threads' wake-up.
///
/// `@unchecked Sendable`: `sem_post` and `sem_wait` may be called from any thread at once
/// (POSIX); the `sem_t` lives at one address from `init` to `deinit`, which runs when no
/// thread can reach it any more.
private final class Semaphore: @unchecked Sendable {
  private let pointer: UnsafeMutablePointer<sem_t>

  init() {
    pointer = .allocate(capacity: 1)
    sem_init(pointer, 0, 0)
  }

  deinit {
    sem_destroy(pointer)
    pointer.deallocate()
  }

  func post() { sem_post(pointer) }

  /// Waits for a post (again after a signal's interruption).
  func wait() {
    while sem_wait(pointer) != 0 && errno == EINTR {}
  }
}
