import CLinux
import Glibc
import Synchronization

/// A single thread of control: an epoll loop over file descriptors (timers, signals, sockets,
/// inotify) plus a queue of `Message`s that other threads post to. Everything that owns mutable
/// state runs on this thread, so it needs no locks. Generic over the message so the loop knows
/// nothing of what the daemon's threads say to each other.
public final class EventLoop<Message: Sendable> {
  private let epoll: Int32
  private var handlers: [UInt64: (fd: Int32, handler: (UInt32) -> Void)] = [:]
  private var tokens: [Int32: UInt64] = [:]
  private var nextToken: UInt64 = 1
  private var running = false
  /// Where other threads post messages for the loop thread.
  public let inbox: LoopInbox<Message>
  /// Handles each posted message, on the loop thread.
  public var onMessage: (Message) -> Void = { _ in }

  /// Makes the epoll set and the inbox (`epoll_create1`, `eventfd`).
  public init() throws(SystemError) {
    epoll = try systemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    inbox = try LoopInbox()
    try watch(inbox.fd) { [unowned self] _ in
      for message in self.inbox.drain() { self.onMessage(message) }
    }
  }

  deinit {
    close(epoll)
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
    try systemCall("epoll_ctl") { epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) }
    handlers[token] = (fd, handler)
    tokens[fd] = token
  }

  /// Changes which events `fd` is watched for (EPOLLIN, EPOLLOUT, …).
  public func change(_ fd: Int32, events: UInt32) {
    guard let token = tokens[fd] else { return }
    var event = epoll_event()
    event.events = events
    event.data.u64 = token
    _ = epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
  }

  /// Stops watching `fd` (call before closing it).
  public func unwatch(_ fd: Int32) {
    guard let token = tokens.removeValue(forKey: fd) else { return }
    handlers[token] = nil
    _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil)
  }

  /// Runs until `stop()`; handlers run one at a time on this thread.
  public func run() {
    running = true
    var events = [epoll_event](repeating: epoll_event(), count: 32)
    while running {
      let count: Int32
      do throws(SystemError) {
        count = try systemCall("epoll_wait") { epoll_wait(epoll, &events, Int32(events.count), -1) }
      } catch {
        // epoll_wait fails only with EBADF, EFAULT or EINVAL (the funnel retries EINTR): a broken
        // invariant of the loop itself, never outside input. Trapping lets systemd restart the
        // daemon (Restart=always), and an open wake-up resumes from disk; limping on could not.
        fatalError("epoll_wait: \(error)")
      }
      for index in 0..<Int(count) {
        // A handler earlier in this batch may have unwatched this one: look it up afresh.
        guard running, let entry = handlers[events[index].data.u64] else { continue }
        entry.handler(events[index].events)
      }
    }
  }

  /// Makes `run()` return after the current handler.
  public func stop() {
    running = false
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

  /// Takes every queued message (loop thread only).
  public func drain() -> [Message] {
    wake.drain()
    return messages.withLock { queued in
      defer { queued.removeAll() }
      return queued
    }
  }
}
