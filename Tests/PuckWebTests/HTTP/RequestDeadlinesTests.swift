import Glibc
import PuckSystem
import Synchronization
import Testing

@testable import PuckWeb

/// The sweeper that cuts off requests taking too long to arrive, on a real socket pair and its
/// own thread: it sleeps until the earliest deadline, so an idle server makes no wake-up.
@Suite struct RequestDeadlinesTests {
  @Test(
    "idle, the sweeper never wakes; a connection past its deadline has its socket shut down and is logged")
  func sleepsUntilTheDeadline() throws {
    let logged = Mutex<[String]>([])
    let deadlines = RequestDeadlines(allowed: .milliseconds(300)) { line in
      logged.withLock { $0.append(line) }
    }
    #expect(deadlines.start())
    defer { deadlines.stop() }

    // With no connection there is nothing to wait for: before, it woke every quarter second.
    usleep(800_000)
    #expect(deadlines.wakeCount == 0, "woke \(deadlines.wakeCount) times with no connection")

    var pair: [Int32] = [-1, -1]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
    defer { _ = pair.map { close($0) } }
    let connection = try #require(OpaquePointer(bitPattern: 0x1000))
    deadlines.opened(connection, socket: pair[0], client: "192.0.2.7")
    // The peer reads end-of-file once the socket is shut down (the test's bound is 10 s).
    var polled = pollfd(fd: pair[1], events: Int16(POLLIN), revents: 0)
    #expect(poll(&polled, 1, 10_000) == 1, "the late connection was not shut down")
    var byte: UInt8 = 0
    #expect(recv(pair[1], &byte, 1, 0) == 0)
    // The line is written just after the shutdown: waited for, up to 10 s.
    var waited = 0
    while !logged.withLock({ $0.contains { $0.contains("cut off a request from 192.0.2.7") } }), waited < 100
    {
      usleep(100_000)
      waited += 1
    }
    #expect(waited < 100, "no log line for the cut: \(logged.withLock { $0 })")

    // Cut off, nothing is due any more: the sweeper sleeps again.
    deadlines.closed(connection)
    let woken = deadlines.wakeCount
    usleep(800_000)
    #expect(deadlines.wakeCount == woken, "woke again with nothing due")
  }

  @Test(
    "nothing is due while a request is answered, its next is due once it is; stop ends a sweeper asleep with no timeout"
  )
  func answeredInTime() throws {
    let deadlines = RequestDeadlines(allowed: .seconds(30)) { _ in }
    #expect(deadlines.start())
    var pair: [Int32] = [-1, -1]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
    defer { _ = pair.map { close($0) } }
    let connection = try #require(OpaquePointer(bitPattern: 0x2000))
    deadlines.opened(connection, socket: pair[0], client: "192.0.2.8")
    deadlines.received(connection)
    #expect(
      deadlines.sweep(now: MonotonicInstant.now() + .seconds(60)).isEmpty,
      "nothing is due while a request is answered")
    deadlines.answered(connection)
    #expect(deadlines.sweep(now: MonotonicInstant.now() + .seconds(60)) == ["192.0.2.8"])
    deadlines.closed(connection)
    deadlines.stop()

    // Never given a deadline, the sweeper sleeps with no timeout: stop still ends it (the test
    // would hang here otherwise).
    let idle = RequestDeadlines(allowed: .seconds(30)) { _ in }
    #expect(idle.start())
    usleep(100_000)
    idle.stop()
    #expect(idle.wakeCount <= 1, "at most one wake: the stop")
  }
}
