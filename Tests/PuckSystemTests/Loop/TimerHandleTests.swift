import Glibc
import Testing

@testable import PuckSystem

/// `EventLoop.timer(_:handler:)` and the `TimerHandle` it returns, on a `ManualClock` and on
/// the kernel's timerfds.
struct TimerHandleTests {
  @Test("arm, disarm and re-arm on a manual clock: the handler runs once per expiry")
  func armAndDisarmOnAManualClock() throws {
    let clock = ManualClock()
    let loop = try EventLoop<Int>(time: clock)
    var firings: [Timer.Firing] = []
    let timer = try loop.timer(.monotonic) { firings.append($0) }
    #expect(!timer.isArmed && !timer.isCancelled)
    #expect(timer.kind == .monotonic)
    try timer.arm(after: .seconds(10))
    #expect(timer.isArmed)
    #expect(timer.readBack() == clock.now(.monotonic) + .seconds(10))
    timer.disarm()
    #expect(!timer.isArmed)
    #expect(timer.readBack() == nil)
    clock.advance(by: .seconds(20))
    #expect(try loop.runUntilIdle() == 0)
    #expect(firings.isEmpty)
    try timer.arm(after: .seconds(10))
    clock.advance(by: .seconds(10))
    try loop.runUntilIdle()
    #expect(firings == [.expired])
    #expect(!timer.isArmed)
    // A wall timer hears steps of the wall clock until disarmed.
    let wall = try loop.timer(.wallClock) { firings.append($0) }
    try wall.arm(atUnixSeconds: clock.wallSeconds() + 60)
    clock.stepWall(by: .seconds(5))
    try loop.runUntilIdle()
    #expect(firings == [.expired, .clockStepped])
  }

  @Test("cancel: the timer leaves the loop and the clock, never fires, and a second cancel does nothing")
  func cancelOnAManualClock() throws {
    let clock = ManualClock()
    let loop = try EventLoop<Int>(time: clock)
    var fired = 0
    let before = clock.timerCount
    let timer = try loop.timer(.monotonic) { _ in fired += 1 }
    #expect(clock.timerCount == before + 1)
    try timer.arm(after: .seconds(1))
    // Due and not yet handled when cancelled: the handler never runs.
    clock.advance(by: .seconds(1))
    timer.cancel()
    #expect(timer.isCancelled && !timer.isArmed)
    #expect(clock.timerCount == before)
    #expect(clock.untilNextFiring == nil)
    #expect(try loop.runUntilIdle() == 0)
    timer.cancel()
    #expect(timer.isCancelled)
    #expect(throws: SystemError("timerfd_settime", code: EBADF)) { try timer.arm(after: .zero) }
    timer.disarm()
    #expect(timer.readBack() == nil)
    clock.advance(by: .seconds(5))
    #expect(try loop.runUntilIdle() == 0)
    #expect(fired == 0)
  }

  @Test("a handler may cancel its own timer; the other timers of its turn still run")
  func cancelFromItsOwnHandler() throws {
    let clock = ManualClock()
    let loop = try EventLoop<Int>(time: clock)
    var log: [String] = []
    var own: TimerHandle?
    let first = try loop.timer(.monotonic) { _ in
      log.append("first")
      own?.cancel()
    }
    own = first
    let second = try loop.timer(.monotonic) { _ in log.append("second") }
    try first.arm(after: .seconds(1))
    try second.arm(after: .seconds(1))
    clock.advance(by: .seconds(1))
    try loop.runUntilIdle()
    #expect(log == ["first", "second"])
    #expect(first.isCancelled && !second.isCancelled)
    #expect(throws: SystemError.self) { try first.arm(after: .zero) }
    try second.arm(after: .zero)
    try loop.runUntilIdle()
    #expect(log == ["first", "second", "second"])
  }

  @Test("a handle let go is cancelled: its timer leaves the loop and the clock")
  func releasingTheHandleCancels() throws {
    let clock = ManualClock()
    let loop = try EventLoop<Int>(time: clock)
    var fired = false
    let before = clock.timerCount
    var timer: TimerHandle? = try loop.timer(.monotonic) { _ in fired = true }
    try timer?.arm(after: .seconds(1))
    timer = nil
    #expect(clock.timerCount == before)
    clock.advance(by: .seconds(2))
    #expect(try loop.runUntilIdle() == 0)
    #expect(!fired)
  }

  @Test("on timerfds: fires once armed, not once disarmed or cancelled; cancel twice is harmless")
  func armDisarmAndCancelOnTimerfds() throws {
    let loop = try EventLoop<Int>(time: SystemTimeSource())
    var log: [String] = []
    // A bound on each run, so a timer that never fires fails the test instead of hanging it.
    let bound = try loop.timer(.monotonic) { _ in
      log.append("bound")
      loop.stop()
    }
    // Ends each run once the timer under test has had its chance.
    let end = try loop.timer(.monotonic) { _ in loop.stop() }
    let timer = try loop.timer(.monotonic) { firing in log.append("timer \(firing)") }
    #expect(!timer.isArmed && timer.kind == .monotonic)
    try timer.arm(after: .seconds(60))
    let left = try #require(timer.readBack()) - SystemClock.monotonic.now()
    #expect(left > .seconds(59) && left <= .seconds(60))
    try timer.arm(after: .milliseconds(5))
    #expect(timer.isArmed)
    try bound.arm(after: .seconds(5))
    try end.arm(after: .milliseconds(50))
    loop.run()
    #expect(log == ["timer expired"])
    #expect(!timer.isArmed)

    // Disarmed: quiet through the next run.
    try timer.arm(after: .milliseconds(5))
    timer.disarm()
    #expect(!timer.isArmed)
    try end.arm(after: .milliseconds(50))
    loop.run()
    #expect(log == ["timer expired"])

    // Cancelled when due at once: the handler never runs.
    try timer.arm(after: .zero)
    timer.cancel()
    timer.cancel()
    #expect(timer.isCancelled && !timer.isArmed)
    #expect(timer.readBack() == nil)
    #expect(throws: SystemError("timerfd_settime", code: EBADF)) { try timer.arm(after: .zero) }
    try end.arm(after: .milliseconds(50))
    loop.run()
    #expect(log == ["timer expired"])
  }
}
