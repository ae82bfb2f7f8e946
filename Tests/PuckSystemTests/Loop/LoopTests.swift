import Glibc
import Testing

@testable import PuckSystem

struct TimerTests {
  /// Waits up to `timeout` for `fd` to become readable.
  private func readable(_ fd: Int32, within timeout: Duration) -> Bool {
    var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return ((try? systemCall("poll") { poll(&descriptor, 1, timeout.pollMilliseconds) }) ?? 0) > 0
  }

  @Test func monotonicTimerExpires() throws {
    let timer = try Timer(.monotonic)
    #expect(!timer.isArmed)
    try timer.arm(after: .milliseconds(5))
    #expect(timer.isArmed)
    #expect(readable(timer.fd, within: .milliseconds(200)))
    #expect(timer.acknowledge() == .expired)
    #expect(!timer.isArmed)
    // Nothing more to read: a spurious wake-up is reported as nothing.
    #expect(timer.acknowledge() == nil)
  }

  @Test func zeroDurationFiresAtOnce() throws {
    let timer = try Timer(.monotonic)
    try timer.arm(after: .zero)
    #expect(readable(timer.fd, within: .milliseconds(100)))
    #expect(timer.acknowledge() == .expired)
  }

  @Test func disarmedTimerStaysQuiet() throws {
    let timer = try Timer(.monotonic)
    try timer.arm(after: .milliseconds(5))
    timer.disarm()
    #expect(!timer.isArmed)
    #expect(!readable(timer.fd, within: .milliseconds(30)))
  }

  @Test("readBack is the kernel's deadline (timerfd_gettime): the armed wall second, nothing once disarmed")
  func readBackIsWhatTheKernelHolds() throws {
    let timer = try Timer(.wallClock)
    #expect(timer.readBack() == nil)
    let deadline = SystemClock.wall.now().components.seconds + 3_600
    try timer.arm(atUnixSeconds: deadline)
    let held = try #require(timer.readBack())
    // now + time left: within a few milliseconds of the armed second.
    #expect(abs((held - .seconds(deadline)).nanoseconds) < 50_000_000, "\(held)")
    timer.disarm()
    #expect(timer.readBack() == nil)
    let monotonic = try Timer(.monotonic)
    try monotonic.arm(after: .seconds(60))
    let left = try #require(monotonic.readBack()) - SystemClock.monotonic.now()
    #expect(left > .seconds(59) && left <= .seconds(60))
  }

  @Test("close closes the timerfd at once; arming it then fails in the kernel")
  func closeClosesTheDescriptor() throws {
    let timer = try Timer(.monotonic)
    try timer.arm(after: .seconds(60))
    #expect(timer.fd >= 0)
    timer.close()
    #expect(timer.fd == -1)
    #expect(!timer.isArmed)
    #expect(throws: SystemError("timerfd_settime", code: EBADF)) { try timer.arm(after: .seconds(1)) }
    timer.close()
  }

  @Test func pastWallDeadlineFiresAtOnce() throws {
    let timer = try Timer(.wallClock)
    try timer.arm(atUnixSeconds: SystemClock.wall.now().components.seconds - 10)
    #expect(readable(timer.fd, within: .milliseconds(100)))
    #expect(timer.acknowledge() == .expired)
  }
}

struct EventLoopTests {
  enum Message: Sendable, Equatable {
    case hello(Int)
  }

  @Test func deliversAPostedMessageFromAnotherThread() throws {
    let loop = try EventLoop<Message>(time: SystemTimeSource())
    var received: [Message] = []
    loop.onMessage = { message in
      received.append(message)
      loop.stop()
    }
    let inbox = loop.inbox
    let poster = Thread { () -> Bool in
      inbox.post(.hello(42))
      return true
    }
    loop.run()
    #expect(poster.join())
    #expect(received == [.hello(42)])
  }

  @Test func watchesADescriptor() throws {
    let loop = try EventLoop<Message>(time: SystemTimeSource())
    let timer = try Timer(.monotonic)
    var fired = false
    try loop.watch(timer.fd) { _ in
      fired = timer.acknowledge() == .expired
      loop.stop()
    }
    try timer.arm(after: .milliseconds(2))
    loop.run()
    #expect(fired)
    loop.unwatch(timer.fd)
  }
}

struct WakeupTests {
  @Test func signalEndsAWaitAndDrainClears() throws {
    let wakeup = try Wakeup()
    wakeup.signal()
    wakeup.signal()
    #expect(wakeup.wait(.seconds(5)))
    // Both signals were consumed by the one wait.
    #expect(!wakeup.wait(.milliseconds(10)))
  }
}

struct UnixSocketAddressTests {
  @Test func pathAndAbstractLengths() throws {
    let path = try #require(UnixSocketAddress("/run/puckd.sock"))
    #expect(Int(path.length) == MemoryLayout<sa_family_t>.size + 15 + 1)
    let abstract = try #require(UnixSocketAddress("@puck"))
    #expect(Int(abstract.length) == MemoryLayout<sa_family_t>.size + 5)
    #expect(UnixSocketAddress(String(repeating: "x", count: 200)) == nil)
    #expect(UnixSocketAddress("") == nil)
  }
}

struct BestEffortWakeupTests {
  @Test func bestEffortWakeupWorksWhenDescriptorsAreAvailable() {
    let wakeup = Wakeup.bestEffort()
    #expect(wakeup.fd >= 0)
    wakeup.signal()
    #expect(wakeup.wait(.seconds(5)))
  }
}
