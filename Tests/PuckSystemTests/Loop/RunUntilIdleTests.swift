import CLinux
import Glibc
import Testing

@testable import PuckSystem

struct RunUntilIdleTests {
  @Test func returnsAtOnceWhenNothingIsReady() throws {
    let loop = try EventLoop<Int>(time: SystemTimeSource())
    #expect(try loop.runUntilIdle() == 0)
  }

  @Test func deliversPostedMessagesAndTheirCascade() throws {
    let loop = try EventLoop<Int>(time: SystemTimeSource())
    var received: [Int] = []
    loop.onMessage = { message in
      received.append(message)
      // Each message posts the next: all of them arrive within the one run.
      if message < 5 { loop.inbox.post(message + 1) }
    }
    loop.inbox.post(1)
    try loop.runUntilIdle()
    #expect(received == [1, 2, 3, 4, 5])
  }

  /// Issue 22 item 4: a flood from the network faster than the loop cannot grow the queue
  /// without bound; what was refused is never delivered, and once the loop has drained it the
  /// inbox takes messages again.
  @Test func aBoundedPostRefusesPastItsLimitUntilTheLoopDrains() throws {
    let loop = try EventLoop<Int>(time: SystemTimeSource())
    var received: [Int] = []
    loop.onMessage = { received.append($0) }
    let queued = (0..<1_000).filter { loop.inbox.post($0, ifFewerThan: 256) }
    #expect(queued == Array(0..<256))
    loop.inbox.post(-1)  // an unbounded post (the loop's own) still queues
    try loop.runUntilIdle()
    #expect(received == Array(0..<256) + [-1])
    #expect(loop.inbox.post(7, ifFewerThan: 256), "drained, it takes messages again")
  }

  @Test func aHandlerArmingADueTimerFiresInTheSameRun() throws {
    let clock = ManualClock()
    let loop = try EventLoop<Int>(time: clock)
    var log: [String] = []
    let second = try loop.timer(.monotonic) { _ in log.append("second") }
    let first = try loop.timer(.monotonic) { _ in
      log.append("first")
      try? second.arm(after: .zero)
    }
    try first.arm(after: .seconds(1))
    clock.advance(by: .seconds(1))
    #expect(try loop.runUntilIdle() == 2)
    #expect(log == ["first", "second"])
  }

  @Test func aSelfRearmingHandlerHitsTheBound() throws {
    let clock = ManualClock()
    let loop = try EventLoop<Int>(time: clock)
    var count = 0
    var rearmed: TimerHandle?
    let timer = try loop.timer(.monotonic) { _ in
      count += 1
      try? rearmed?.arm(after: .zero)
    }
    rearmed = timer
    try timer.arm(after: .zero)
    #expect(throws: EventLoopBusy.self) { try loop.runUntilIdle(maxRounds: 50) }
    #expect(count == 50)
    timer.disarm()
    #expect(try loop.runUntilIdle() == 0)
  }

  @Test func deliversReadyDescriptors() throws {
    let loop = try EventLoop<Int>(time: SystemTimeSource())
    var fds: [Int32] = [0, 0]
    #expect(pipe2(&fds, O_CLOEXEC) == 0)
    defer {
      close(fds[0])
      close(fds[1])
    }
    var read = 0
    try loop.watch(fds[0]) { _ in
      var byte: UInt8 = 0
      read += Glibc.read(fds[0], &byte, 1)
    }
    var byte: UInt8 = 7
    #expect(write(fds[1], &byte, 1) == 1)
    try loop.runUntilIdle()
    #expect(read == 1)
  }

  @Test func stopEndsTheRun() throws {
    let loop = try EventLoop<Int>(time: SystemTimeSource())
    var received: [Int] = []
    loop.onMessage = { message in
      received.append(message)
      loop.stop()
      loop.inbox.post(message + 1)
    }
    loop.inbox.post(1)
    try loop.runUntilIdle()
    #expect(received == [1])
    // The next run picks up where the stopped one left off.
    try loop.runUntilIdle()
    #expect(received == [1, 2])
  }

  @Test func theEndOfATurnRunsOnceAfterAllItsHandlers() throws {
    let loop = try EventLoop<Int>(time: SystemTimeSource())
    var fds: [Int32] = [0, 0, 0, 0]
    #expect(pipe2(&fds, O_CLOEXEC) == 0)
    #expect(fds.withUnsafeMutableBufferPointer { pipe2($0.baseAddress! + 2, O_CLOEXEC) } == 0)
    defer { fds.forEach { close($0) } }
    var log: [String] = []
    for (name, fd) in [("a", fds[0]), ("b", fds[2])] {
      try loop.watch(fd) { _ in
        var byte: UInt8 = 0
        _ = Glibc.read(fd, &byte, 1)
        log.append(name)
      }
    }
    loop.atEndOfEachTurn { log.append("end") }
    var byte: UInt8 = 7
    #expect(write(fds[1], &byte, 1) == 1)
    #expect(write(fds[3], &byte, 1) == 1)
    try loop.runUntilIdle()
    // Both descriptors were ready in one epoll_wait: one end for the two, then the idle turns'.
    #expect(log.prefix(3).sorted() == ["a", "b", "end"])
    #expect(log[2] == "end")
    #expect(log.dropFirst(3).allSatisfy { $0 == "end" })
  }
}
