import CLinux
import Glibc
import Synchronization

/// A single thread of control: an epoll loop over file descriptors (timers, signals, sockets,
/// inotify) plus a queue of `Message`s that other threads post to. Everything that owns mutable
/// state runs on this thread, so it needs no locks. Generic over the message so the loop knows
/// nothing of what the daemon's threads say to each other.
///
/// Its timers come from the `TimeSource` it is made with (`timer(_:handler:)`): timerfds on the
/// real clocks, or a `ManualClock`'s timers, which a test fires by moving the clock.
public final class EventLoop<Message: Sendable> {
  private let epoll: FileDescriptor
  /// Where the timers come from.
  private let time: any TimeSource
  private var handlers: [UInt64: (fd: Int32, handler: (UInt32) -> Void)] = [:]
  private var tokens: [Int32: UInt64] = [:]
  private var nextToken: UInt64 = 1
  private var running = false
  private var events = [epoll_event](repeating: epoll_event(), count: 32)
  /// Handlers are dispatched from `events`, so a handler must not run the loop again.
  private var dispatching = false
  /// Where other threads post messages for the loop thread.
  public let inbox: LoopInbox<Message>
  /// Handles each posted message, on the loop thread.
  public var onMessage: (Message) -> Void = { _ in }
  /// Runs after the handlers of each turn (one `epoll_wait`), before the loop sleeps again.
  private var endOfTurn: () -> Void = {}

  /// Makes the epoll set and the inbox (`epoll_create1`, `eventfd`); `time` makes the timers.
  public init(time: any TimeSource) throws(SystemError) {
    self.time = time
    epoll = try FileDescriptor("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    inbox = try LoopInbox()
    try watch(inbox.fd) { [unowned self] _ in
      for message in self.inbox.drain() { self.onMessage(message) }
    }
  }

  /// Calls `handler` with the epoll event mask whenever `fd` is readable (or hung up / in error).
  public func watch(_ fd: Int32, events: UInt32 = EPOLLIN.rawValue, handler: @escaping (UInt32) -> Void)
    throws(SystemError)
  {
    let token = nextToken
    nextToken += 1
    var event = epoll_event()
    event.events = events
    event.data.u64 = token
    try systemCall("epoll_ctl") { epoll_ctl(epoll.rawValue, EPOLL_CTL_ADD, fd, &event) }
    handlers[token] = (fd, handler)
    tokens[fd] = token
  }

  /// Changes which events `fd` is watched for (EPOLLIN, EPOLLOUT, …).
  public func change(_ fd: Int32, events: UInt32) {
    guard let token = tokens[fd] else { return }
    var event = epoll_event()
    event.events = events
    event.data.u64 = token
    _ = epoll_ctl(epoll.rawValue, EPOLL_CTL_MOD, fd, &event)
  }

  /// Stops watching `fd` (call before closing it).
  public func unwatch(_ fd: Int32) {
    guard let token = tokens.removeValue(forKey: fd) else { return }
    handlers[token] = nil
    _ = epoll_ctl(epoll.rawValue, EPOLL_CTL_DEL, fd, nil)
  }

  /// Makes a disarmed timer on `kind`'s clock and watches it: `handler` runs on this thread with
  /// what woke it (expired, or the wall clock stepped) each time it fires; spurious wake-ups
  /// are dropped. The caller owns the handle: arm it, and cancel it (or let it go) when done.
  public func timer(_ kind: Timer.Kind, handler: @escaping (Timer.Firing) -> Void) throws(SystemError)
    -> TimerHandle
  {
    let timer = try time.makeTimer(kind)
    do throws(SystemError) {
      try watch(timer.fd) { _ in
        guard let firing = timer.acknowledge() else { return }
        handler(firing)
      }
    } catch {
      timer.close()
      throw error
    }
    return TimerHandle(timer) { [weak self] fd in self?.unwatch(fd) }
  }

  /// Calls `work` at the end of every turn: after the handlers that one `epoll_wait` found
  /// ready, before the next one (systemd's `sd_event` defer sources run at the same point). What
  /// the handlers of a turn changed is acted on there once, however many handlers changed it.
  public func atEndOfEachTurn(_ work: @escaping () -> Void) {
    endOfTurn = work
  }

  /// Runs until `stop()`; handlers run one at a time on this thread.
  public func run() {
    running = true
    while running {
      // -1: sleep until a descriptor is ready; an idle daemon makes no wake-ups of its own.
      _ = dispatchReady(timeoutMilliseconds: -1)
    }
  }

  /// Runs every handler that is ready now, then those that become ready through them (a
  /// posted message, a timer armed for a time already past), without ever sleeping: how a test
  /// drives the loop after moving a `ManualClock`. Returns after `stop()`, or when nothing is
  /// ready, with the number of handlers run. Throws when still busy after `maxRounds` rounds
  /// (one `epoll_wait` each), so a handler that keeps re-arming itself fails the test instead
  /// of hanging it.
  @discardableResult
  public func runUntilIdle(maxRounds: Int = 1_000) throws(EventLoopBusy) -> Int {
    running = true
    var handled = 0
    var idle = false
    for _ in 0..<maxRounds {
      let (ready, ran) = dispatchReady(timeoutMilliseconds: 0)
      handled += ran
      if !running { return handled }
      // Idle twice in a row: the end of an idle turn may still have made something ready.
      if ready == 0 && idle { return handled }
      idle = ready == 0
    }
    throw EventLoopBusy(rounds: maxRounds, handled: handled)
  }

  /// One `epoll_wait` and its handlers: how many descriptors were ready, and how many
  /// handlers ran.
  private func dispatchReady(timeoutMilliseconds: Int32) -> (ready: Int, ran: Int) {
    precondition(!dispatching, "the loop was run again from inside one of its handlers")
    dispatching = true
    defer { dispatching = false }
    let count: Int32
    do throws(SystemError) {
      count = try systemCall("epoll_wait") {
        epoll_wait(epoll.rawValue, &events, Int32(events.count), timeoutMilliseconds)
      }
    } catch {
      // epoll_wait fails only with EBADF, EFAULT or EINVAL (the funnel retries EINTR): a broken
      // invariant of the loop itself, never outside input. Trapping lets systemd restart the
      // daemon (Restart=always), and an open wake-up resumes from disk; limping on could not.
      fatalError("epoll_wait: \(error)")
    }
    var ran = 0
    for index in 0..<Int(count) {
      // A handler earlier in this batch may have unwatched this one: look it up afresh.
      guard running, let entry = handlers[events[index].data.u64] else { continue }
      entry.handler(events[index].events)
      ran += 1
    }
    endOfTurn()
    return (Int(count), ran)
  }

  /// Makes `run()` return after the current handler.
  public func stop() {
    running = false
  }
}

/// `EventLoop.runUntilIdle(maxRounds:)` was still finding ready handlers after its last
/// round: something re-arms or re-posts itself without end.
public struct EventLoopBusy: Error, Sendable, CustomStringConvertible {
  /// The rounds it ran.
  public let rounds: Int
  /// The handlers it ran in them.
  public let handled: Int

  /// `event loop still busy after 1000 rounds (31977 handlers)`.
  public var description: String {
    "event loop still busy after \(rounds) rounds (\(handled) handlers)"
  }
}

/// A thread-safe queue into the loop: any thread may `post` a message; the loop thread handles
/// it. Synchronised by a `Mutex`; a `Wakeup` wakes the loop.
public final class LoopInbox<Message: Sendable>: Sendable {
  private let wake: Wakeup
  private let messages = Mutex<[Message]>([])

  /// The descriptor the loop watches.
  public var fd: Int32 { wake.fd }

  init() throws(SystemError) {
    wake = try Wakeup()
  }

  /// Queues `message` for the loop thread.
  public func post(_ message: Message) {
    messages.withLock { $0.append(message) }
    wake.signal()
  }

  /// Queues `message` unless `limit` messages or more are waiting already; returns whether it
  /// was queued. Messages from the network come this way, so a flood faster than the loop
  /// cannot grow the queue without bound (docs/DESIGN.md M8).
  @discardableResult
  public func post(_ message: Message, ifFewerThan limit: Int) -> Bool {
    let queued = messages.withLock { queued in
      guard queued.count < limit else { return false }
      queued.append(message)
      return true
    }
    if queued { wake.signal() }
    return queued
  }

  /// Takes every queued message (loop thread only).
  public func drain() -> [Message] {
    wake.drain()
    return messages.withLock { queued in
      defer { queued.removeAll() }
      return queued
    }
  }
}
