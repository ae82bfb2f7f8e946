/// The RF time of InListPassiveTarget, for the emulator's slot-faithful mode
/// (`PN532Emulator.Timing.slotFaithful`): a listing takes the time a PN532 spends on the air
/// instead of answering at once.
///
/// The model (docs/BENCHMARKS.md, "The remote path's speed, measured from the field"):
/// - The chip makes MxRtyPassiveActivation + 1 activation attempts (RFConfiguration item 5,
///   UM0701-02 §7.3.1: 0x00 is one try, 0xFF retries for ever; libnfc 1.8 sets 0x02 while
///   infinite select is off, so three), one every `attempt`, and answers "no target" when the
///   last is over.
/// - A tag in the field when an attempt starts answers it; its listing goes out `activation`
///   later (REQA/ATQA, anticollision and SELECT for each cascade level).
/// - A tag laid on the antenna during an attempt is seen by the next one, as by a real chip
///   that has already sent its REQA.
extension PN532Chip {
  /// The durations of the model. Neither UM0701 nor the datasheet states them; the defaults
  /// are chosen in docs/BENCHMARKS.md, where the reasoning and sources are.
  public struct RFTiming: Hashable, Sendable {
    /// One activation attempt that no tag answers: REQA, the wait for an ATQA, and the
    /// firmware's turn-around before the next try.
    public var attempt: Duration
    /// From the attempt a tag answers to the end of its activation (the listing's answer).
    public var activation: Duration

    /// The model's durations; the defaults are the ones docs/BENCHMARKS.md records figures with.
    public init(attempt: Duration = .milliseconds(5), activation: Duration = .milliseconds(3)) {
      self.attempt = attempt
      self.activation = activation
    }

    /// The time a listing with no tag takes on the air with `retries` as
    /// MxRtyPassiveActivation (nil for 0xFF: it never ends).
    public func emptyListing(retries: UInt8) -> Duration? {
      retries == 0xFF ? nil : attempt * (Int(retries) + 1)
    }
  }

  /// Starts a listing under `timing` at `now`; its answer comes from `resume(at:)`.
  mutating func timedListing(_ initiatorData: [UInt8], timing: RFTiming, at now: Duration) -> Reply {
    let attempts = passiveActivationRetries == 0xFF ? nil : Int(passiveActivationRetries) + 1
    pending = .attempting(initiatorData: initiatorData, start: now, attempt: 0, attempts: attempts)
    return resumeTimedListing(at: now) ?? .waiting
  }

  /// When the timed listing next does something: its next attempt, its end, or its answer.
  var timedListingNextCheck: Duration? {
    guard let timing = rfTiming else { return nil }
    switch pending {
    case .attempting(_, let start, let attempt, _)?:
      return start + timing.attempt * attempt
    case .activating(_, let due)?:
      return due
    default:
      return nil
    }
  }

  /// Runs the attempts that have started by `now`, in order, each against the field as it was
  /// then: a tag counts from the attempt that started after it was laid down.
  mutating func resumeTimedListing(at now: Duration) -> Reply? {
    guard let timing = rfTiming else { return nil }
    while true {
      switch pending {
      case .activating(let tag, let due)?:
        guard due <= now else { return nil }
        pending = nil
        // A tag lifted during its activation is not listed.
        guard tags.contains(tag) else { return .response([0x00]) }
        return listing(tag)
      case .attempting(let initiatorData, let start, let attempt, let attempts)?:
        let attemptStart = start + timing.attempt * attempt
        guard attemptStart <= now else { return nil }
        if let attempts, attempt >= attempts {
          pending = nil
          return .response([0x00])
        }
        if fieldChangedAt <= attemptStart, let tag = answering(initiatorData) {
          pending = .activating(tag: tag, due: attemptStart + timing.activation)
        } else {
          pending = .attempting(
            initiatorData: initiatorData, start: start, attempt: attempt + 1, attempts: attempts)
        }
      default:
        return nil
      }
    }
  }

  /// The tag that answers a listing: the next in turn, or the one whose UID the host named.
  private mutating func answering(_ initiatorData: [UInt8]) -> EmulatedTag? {
    initiatorData.isEmpty
      ? takeTurn() : tags.first { initiatorData == $0.uid || initiatorData == $0.cascadedUID }
  }
}
