import Glibc
import Testing

@testable import PuckSystem

struct SystemClockTests {
  @Test func timespecToDurationIsExact() {
    let time = timespec(tv_sec: 12, tv_nsec: 500_000_001)
    #expect(Duration(reading: time) == .seconds(12) + .nanoseconds(500_000_001))
  }

  @Test func durationToTimespecRoundsUpToTheNanosecond() {
    let exact = Duration.milliseconds(1500).waitTimespec
    #expect(exact.tv_sec == 1 && exact.tv_nsec == 500_000_000)
    // One attosecond past a whole second is a wait of one more nanosecond, never less.
    let above = (Duration.seconds(1) + Duration(secondsComponent: 0, attosecondsComponent: 1)).waitTimespec
    #expect(above.tv_sec == 1 && above.tv_nsec == 1)
    let almost = Duration(secondsComponent: 0, attosecondsComponent: 999_999_999_999_999_999).waitTimespec
    #expect(almost.tv_sec == 1 && almost.tv_nsec == 0)
  }

  @Test func negativeAndZeroBecomeZero() {
    let negative = Duration.milliseconds(-3).waitTimespec
    #expect(negative.tv_sec == 0 && negative.tv_nsec == 0)
    #expect(Duration.milliseconds(-1).pollMilliseconds == 0)
    #expect(Duration.zero.roundedUpNanoseconds == 0)
  }

  @Test func coarserUnitsRoundUp() {
    #expect(Duration.nanoseconds(1).pollMilliseconds == 1)
    #expect(Duration.milliseconds(250).pollMilliseconds == 250)
    #expect((Duration.milliseconds(250) + .nanoseconds(1)).pollMilliseconds == 251)
    #expect(Duration.microseconds(1500).roundedUpMilliseconds == 2)
    #expect(Duration.nanoseconds(1001).roundedUpMicroseconds == 2)
    #expect(Duration.seconds(Int64.max).pollMilliseconds == Int32.max)
    #expect(Duration.seconds(Int64.max).roundedUpNanoseconds == Int64.max)
  }

  @Test func signedNanosecondsTruncateSymmetricallyAndSaturate() {
    let tiny = Duration(secondsComponent: 0, attosecondsComponent: 1_500_000_000)
    #expect(tiny.nanoseconds == 1)
    #expect((.zero - tiny).nanoseconds == -1)
    #expect(Duration.milliseconds(-2).nanoseconds == -2_000_000)
    #expect(Duration.seconds(Int64.max).nanoseconds == .max)
    #expect(Duration.seconds(Int64.min).nanoseconds == .min)
  }

  @Test func clocksMoveForward() {
    for clock in [SystemClock.wall, .monotonic, .boot] {
      let first = clock.now()
      #expect(clock.now() >= first)
    }
    // The wall clock counts from 1970: any machine running this is past 2020.
    #expect(SystemClock.wall.now() > .seconds(1_577_836_800))
  }
}

struct BackoffTests {
  @Test func doublesUpToTheMaximum() {
    let backoff = Backoff.standard
    let delays = (1...7).map { backoff.delay(afterFailures: $0) }
    #expect(
      delays == [
        .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10),
      ])
    #expect(backoff.delay(afterFailures: 0) == .milliseconds(500))
  }

  @Test func countsFailuresAndResets() {
    var backoff = Backoff(initial: .milliseconds(100), maximum: .milliseconds(300))
    #expect(
      [backoff.delay(), backoff.delay(), backoff.delay(), backoff.delay()] == [
        .milliseconds(100), .milliseconds(200), .milliseconds(300), .milliseconds(300),
      ])
    backoff.reset()
    #expect(backoff.delay() == .milliseconds(100))
  }
}
