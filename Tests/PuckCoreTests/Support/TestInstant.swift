/// An instant on a clock the test moves by hand, for the core's types that measure elapsed time
/// (`RepeatLimiter`, `NetworkPressFilter`): `.seconds(5)` is five seconds after the origin,
/// `.zero` the origin. The daemon hands them PuckSystem's `MonotonicInstant` instead, which
/// the core cannot import.
struct TestInstant: InstantProtocol {
  /// The time since the origin.
  let sinceOrigin: Duration

  /// The origin.
  static let zero = TestInstant(sinceOrigin: .zero)

  static func seconds(_ seconds: Int) -> TestInstant { TestInstant(sinceOrigin: .seconds(seconds)) }

  static func milliseconds(_ milliseconds: Int) -> TestInstant {
    TestInstant(sinceOrigin: .milliseconds(milliseconds))
  }

  func advanced(by duration: Duration) -> TestInstant { TestInstant(sinceOrigin: sinceOrigin + duration) }

  func duration(to other: TestInstant) -> Duration { other.sinceOrigin - sinceOrigin }

  static func < (lhs: TestInstant, rhs: TestInstant) -> Bool { lhs.sinceOrigin < rhs.sinceOrigin }
}
