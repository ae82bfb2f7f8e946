import Glibc
import Testing

@testable import PuckSystem

/// A loop over a manual clock, recording every firing as (timer name, firing, wall seconds).
private final class Harness {
  let clock = ManualClock()
  let loop: EventLoop<Int>
  var log: [String] = []
  var timers: [String: TimerHandle] = [:]

  init() throws {
    loop = try EventLoop(time: clock)
  }

  @discardableResult
  func timer(_ name: String, _ kind: Timer.Kind) throws -> TimerHandle {
    let timer = try loop.timer(kind) { [unowned self] firing in
      self.log.append("\(name) \(firing) @\(self.clock.now(.monotonic).components.seconds - 1_000)")
    }
    timers[name] = timer
    return timer
  }

  var wallSeconds: Int64 { clock.wallSeconds() }
}

struct ManualClockTests {
  @Test("readBack gives the deadline while armed; loseDeadlines drops it without telling the owner")
  func readBackAndLostDeadlines() throws {
    let clock = ManualClock(wall: .seconds(1_000_000))
    let timer = try clock.makeTimer(.wallClock)
    #expect(timer.readBack() == nil)
    try timer.arm(atUnixSeconds: 1_000_600)
    #expect(timer.readBack() == .seconds(1_000_600))
    clock.loseDeadlines()
    #expect(timer.readBack() == nil)
    clock.advance(by: .seconds(700))
    #expect(timer.acknowledge() == nil, "a lost deadline never fires")
  }

  @Test func readingsMoveOnlyWhenTold() {
    let clock = ManualClock(wall: .seconds(1_000_000), monotonic: .seconds(5), boot: .seconds(7))
    #expect(clock.now(.wall) == .seconds(1_000_000))
    #expect(clock.now(.monotonic) == .seconds(5))
    #expect(clock.bootSeconds() == 7)
    clock.advance(by: .milliseconds(1500))
    #expect(clock.now(.wall) == .seconds(1_000_000) + .milliseconds(1500))
    #expect(clock.now(.monotonic) == .milliseconds(6500))
    #expect(clock.now(.boot) == .milliseconds(8500))
  }

  @Test func timersFireInDeadlineOrderAndNotBefore() throws {
    let harness = try Harness()
    let start = harness.wallSeconds
    try harness.timer("late", .monotonic).arm(after: .seconds(30))
    try harness.timer("wall", .wallClock).arm(atUnixSeconds: start + 20)
    try harness.timer("early", .monotonic).arm(after: .seconds(10))
    harness.clock.advance(by: .seconds(10) - .nanoseconds(1))
    #expect(try harness.loop.runUntilIdle() == 0)
    #expect(harness.log.isEmpty)
    #expect(harness.timers["early"]?.isArmed == true)
    harness.clock.advance(by: .nanoseconds(1))
    #expect(try harness.loop.runUntilIdle() == 1)
    #expect(harness.log == ["early expired @10"])
    #expect(harness.timers["early"]?.isArmed == false)
    // One long advance fires the rest in deadline order; without settling, every handler sees
    // the final time, as after a late wake-up.
    harness.clock.advance(by: .seconds(50))
    try harness.loop.runUntilIdle()
    #expect(harness.log == ["early expired @10", "wall expired @60", "late expired @60"])
  }

  @Test func settlingRunsEachHandlerAtItsDeadlineAndCascades() throws {
    let harness = try Harness()
    var log: [String] = []
    let ring = try harness.loop.timer(.monotonic) { firing in
      log.append("ring \(firing) @\(harness.wallSeconds)")
    }
    let alarm = try harness.loop.timer(.wallClock) { firing in
      log.append("alarm \(firing) @\(harness.wallSeconds)")
      // The ring timeout is armed by the alarm's handler and falls inside the same advance.
      try? ring.arm(after: .seconds(300))
    }
    let start = harness.wallSeconds
    try alarm.arm(atUnixSeconds: start + 3600)
    try harness.clock.advance(by: .seconds(8 * 3600)) { () throws(EventLoopBusy) in
      try harness.loop.runUntilIdle()
    }
    #expect(log == ["alarm expired @\(start + 3600)", "ring expired @\(start + 3900)"])
    #expect(harness.wallSeconds == start + 8 * 3600)
  }

  @Test func wallStepsReachArmedWallTimersOnly() throws {
    let harness = try Harness()
    let start = harness.wallSeconds
    let wall = try harness.timer("wall", .wallClock)
    try harness.timer("idle", .wallClock)
    let monotonic = try harness.timer("mono", .monotonic)
    try wall.arm(atUnixSeconds: start + 3600)
    try monotonic.arm(after: .seconds(60))

    harness.clock.stepWall(by: .seconds(-600))
    try harness.loop.runUntilIdle()
    #expect(harness.log == ["wall clockStepped @0"])
    // A step back leaves the deadline where it was: it is now 70 minutes away.
    #expect(wall.isArmed)
    #expect(harness.clock.now(.monotonic) == .seconds(1_000))

    harness.log = []
    harness.clock.stepWall(by: .seconds(1200))
    try harness.loop.runUntilIdle()
    #expect(harness.log == ["wall clockStepped @0"])
    harness.log = []
    // Still armed for its absolute time: it expires when the wall clock reaches it.
    harness.clock.advance(by: .seconds(60))
    try harness.loop.runUntilIdle()
    #expect(harness.log == ["mono expired @60"])
    harness.clock.advance(by: .seconds(3600 - 600 - 60))
    try harness.loop.runUntilIdle()
    #expect(harness.log == ["mono expired @60", "wall expired @3000"])
  }

  @Test func aStepPastTheDeadlineIsOneClockStepped() throws {
    let harness = try Harness()
    let wall = try harness.timer("wall", .wallClock)
    try wall.arm(atUnixSeconds: harness.wallSeconds + 60)
    harness.clock.setWall(to: harness.clock.now(.wall) + .seconds(2 * 3600))
    try harness.loop.runUntilIdle()
    harness.clock.advance(by: .seconds(1 * 3600))
    try harness.loop.runUntilIdle()
    #expect(harness.log == ["wall clockStepped @0"])
    #expect(!wall.isArmed)
  }

  @Test func anExpiredWallTimerStillNoticesStepsUntilDisarmed() throws {
    let harness = try Harness()
    let wall = try harness.timer("wall", .wallClock)
    try wall.arm(atUnixSeconds: harness.wallSeconds + 1)
    harness.clock.advance(by: .seconds(1))
    try harness.loop.runUntilIdle()
    harness.clock.stepWall(by: .seconds(5))
    try harness.loop.runUntilIdle()
    #expect(harness.log == ["wall expired @1", "wall clockStepped @1"])
    wall.disarm()
    harness.clock.stepWall(by: .seconds(5))
    #expect(try harness.loop.runUntilIdle() == 0)
  }

  @Test func disarmAndRearmForgetThePendingFiring() throws {
    let harness = try Harness()
    let timer = try harness.timer("t", .monotonic)
    try timer.arm(after: .seconds(5))
    harness.clock.advance(by: .seconds(5))
    // Fired but not yet read: disarming drops it, as timerfd_settime clears the count.
    timer.disarm()
    #expect(!timer.isArmed)
    #expect(try harness.loop.runUntilIdle() == 0)
    try timer.arm(after: .seconds(5))
    harness.clock.advance(by: .seconds(4))
    try timer.arm(after: .seconds(5))
    harness.clock.advance(by: .seconds(4))
    #expect(try harness.loop.runUntilIdle() == 0)
    harness.clock.advance(by: .seconds(1))
    try harness.loop.runUntilIdle()
    #expect(harness.log == ["t expired @14"])
    // Zero, negative and past deadlines fire at once, as on a timerfd.
    try timer.arm(after: .zero)
    try harness.loop.runUntilIdle()
    let wall = try harness.timer("w", .wallClock)
    try wall.arm(atUnixSeconds: harness.wallSeconds - 10)
    try harness.loop.runUntilIdle()
    #expect(harness.log == ["t expired @14", "t expired @14", "w expired @14"])
  }

  @Test func suspendMovesWallAndBootButNotMonotonic() throws {
    let harness = try Harness()
    let monotonic = try harness.timer("mono", .monotonic)
    let wall = try harness.timer("wall", .wallClock)
    try monotonic.arm(after: .seconds(60))
    try wall.arm(atUnixSeconds: harness.wallSeconds + 7200)
    let boot = harness.clock.now(.boot)
    harness.clock.suspend(for: .seconds(1 * 3600))
    try harness.loop.runUntilIdle()
    #expect(harness.clock.now(.boot) - boot == .seconds(1 * 3600))
    #expect(harness.clock.now(.monotonic) == .seconds(1_000))
    // The resume counts as a clock set for CANCEL_ON_SET timers; the monotonic one waits on.
    #expect(harness.log == ["wall clockStepped @0"])
    #expect(monotonic.isArmed && wall.isArmed)
    #expect(harness.clock.untilNextFiring == .seconds(60))
    try harness.clock.advance(by: .seconds(1 * 3600)) { () throws(EventLoopBusy) in
      try harness.loop.runUntilIdle()
    }
    #expect(harness.log == ["wall clockStepped @0", "mono expired @60", "wall expired @3600"])
  }

  @Test func synchronisationIsSetByTheTest() {
    let clock = ManualClock()
    #expect(clock.isSynchronized() == true)
    clock.setSynchronized(false)
    #expect(clock.isSynchronized() == false)
    clock.setSynchronized(nil)
    #expect(clock.isSynchronized() == nil)
  }

  @Test func stepsReachWallTimersInArmingOrder() throws {
    let harness = try Harness()
    let names = ["c", "a", "d", "b"]
    for name in names {
      try harness.timer(name, .wallClock).arm(atUnixSeconds: harness.wallSeconds + 60)
    }
    harness.clock.stepWall(by: .seconds(1))
    try harness.loop.runUntilIdle()
    #expect(harness.log == names.map { "\($0) clockStepped @0" })
  }

  @Test func releasedTimersLeaveTheClock() throws {
    let clock = ManualClock()
    var timer: (any LoopTimer)? = try clock.makeTimer(.monotonic)
    try timer?.arm(after: .seconds(1))
    #expect(clock.untilNextFiring == .seconds(1))
    timer = nil
    #expect(clock.untilNextFiring == nil)
    clock.advance(by: .seconds(2))
  }
}

struct SystemTimeSourceTests {
  @Test func readsTheKernelClocksAndMakesTimerfds() throws {
    let source: any TimeSource = SystemTimeSource()
    let before = SystemClock.monotonic.now()
    #expect(source.now(.monotonic) >= before)
    #expect(source.wallSeconds() > 1_577_836_800)
    #expect(source.now(.boot) >= source.now(.monotonic) - .seconds(1))
    // Whatever the machine's NTP state, adjtimex answers here.
    #expect(source.isSynchronized() != nil)
    #expect(try source.makeTimer(.monotonic) is Timer)
    let loop = try EventLoop<Int>(time: source)
    var firings: [Timer.Firing] = []
    let timer = try loop.timer(.monotonic) { firing in
      firings.append(firing)
      loop.stop()
    }
    try timer.arm(after: .milliseconds(20))
    loop.run()
    #expect(firings == [.expired])
    #expect(SystemClock.monotonic.now() - before >= .milliseconds(20))
    let wall = try loop.timer(.wallClock) { firing in
      firings.append(firing)
      loop.stop()
    }
    try wall.arm(atUnixSeconds: source.wallSeconds() - 1)
    loop.run()
    #expect(firings == [.expired, .expired])
  }
}
