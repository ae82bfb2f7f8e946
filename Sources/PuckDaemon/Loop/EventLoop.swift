import CLinux
import Glibc
import Synchronization

/// The daemon's single thread of control: an epoll loop over file descriptors (timers, signals,
/// the control socket and its clients, inotify) plus a queue that other threads (audio, reader)
/// post to. Everything that owns mutable daemon state runs on this thread, so it needs no locks.
final class EventLoop {
  private let epoll: Int32
  private var handlers: [UInt64: (fd: Int32, handler: (UInt32) -> Void)] = [:]
  private var tokens: [Int32: UInt64] = [:]
  private var nextToken: UInt64 = 1
  private var running = false
  /// Where other threads post messages for the loop thread.
  let inbox: LoopInbox
  /// Handles each posted message, on the loop thread.
  var onMessage: (LoopMessage) -> Void = { _ in }

  init() throws(SystemError) {
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
  func watch(_ fd: Int32, events: UInt32 = EPOLLIN.rawValue, handler: @escaping (UInt32) -> Void)
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
  func change(_ fd: Int32, events: UInt32) {
    guard let token = tokens[fd] else { return }
    var event = epoll_event()
    event.events = events
    event.data.u64 = token
    _ = epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
  }

  /// Stops watching `fd` (call before closing it).
  func unwatch(_ fd: Int32) {
    guard let token = tokens.removeValue(forKey: fd) else { return }
    handlers[token] = nil
    _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil)
  }

  /// Runs until `stop()`; handlers run one at a time on this thread.
  func run() {
    running = true
    var events = [epoll_event](repeating: epoll_event(), count: 32)
    while running {
      let count = epoll_wait(epoll, &events, Int32(events.count), -1)
      if count < 0 {
        if errno == EINTR { continue }
        // epoll_wait fails only with EBADF, EFAULT or EINVAL (EINTR is retried above): a broken
        // invariant of the loop itself, never outside input. Trapping lets systemd restart the
        // daemon (Restart=always), and an open wake-up resumes from disk; limping on could not.
        fatalError("epoll_wait: \(SystemError("epoll_wait"))")
      }
      for index in 0..<Int(count) {
        // A handler earlier in this batch may have unwatched this one: look it up afresh.
        guard running, let entry = handlers[events[index].data.u64] else { continue }
        entry.handler(events[index].events)
      }
    }
  }

  /// Makes `run()` return after the current handler.
  func stop() {
    running = false
  }
}

/// A thread-safe queue into the loop: any thread may `post` a message; the loop thread handles
/// it. Synchronised by a `Mutex`; the eventfd wakes the loop.
final class LoopInbox: Sendable {
  let fd: Int32
  private let messages = Mutex<[LoopMessage]>([])

  init() throws(SystemError) {
    fd = try systemCall("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
  }

  deinit {
    close(fd)
  }

  /// Queues `message` for the loop thread.
  func post(_ message: LoopMessage) {
    messages.withLock { $0.append(message) }
    var one: UInt64 = 1
    _ = write(fd, &one, 8)
  }

  /// Takes every queued message (loop thread only).
  func drain() -> [LoopMessage] {
    var counter: UInt64 = 0
    _ = read(fd, &counter, 8)
    return messages.withLock { queued in
      defer { queued.removeAll() }
      return queued
    }
  }
}
