import PuckCore

/// The bring-up assistant's trial of one wired GPIO part (`puckctl setup`): the buzzer beeps
/// and the LED blinks a few times for the person to confirm; the button waits for a press.
/// Lines are opened with the daemon's own openers (`GPIOLineRequest` on a board, the recording
/// doubles in tests) and released before the trial returns, so puckd can take them after.
public struct PartTrial: Sendable {
  /// How a trial ended.
  public enum Outcome: Hashable, Sendable {
    /// The line opened and the person confirmed the part (heard it, saw it, pressed it).
    case confirmed(location: String)
    /// The line opened, but the person did not confirm the part, or no press came in time:
    /// the wiring, not the line, is what to check.
    case unconfirmed(location: String)
    /// The line could not be opened or driven; a line another program holds names it.
    case failed(GPIOError)
  }

  private let openOutput: GPIOOutputOpener
  private let openInput: GPIOInputOpener
  private let pause: @Sendable (Duration) -> Void
  /// How many beeps or blinks a signal gives.
  public var beats = 3
  /// How long each beep or blink is on, and the gap after it.
  public var beat: Duration = .milliseconds(300)

  /// A trial opening lines with `openOutput` and `openInput`, waiting out each beat with
  /// `pause` (a real sleep for a person; the manual clock's advance in tests).
  public init(
    openOutput: @escaping GPIOOutputOpener, openInput: @escaping GPIOInputOpener,
    pause: @escaping @Sendable (Duration) -> Void
  ) {
    self.openOutput = openOutput
    self.openInput = openInput
    self.pause = pause
  }

  /// Beeps or blinks the output at `settings` `beats` times, leaves it off and released, then
  /// asks `confirm` whether the person noticed.
  public func signal(_ settings: GPIOLineSettings, confirm: () -> Bool) -> Outcome {
    let line: any GPIOOutputLine
    do throws(GPIOError) {
      line = try openOutput(settings)
    } catch {
      return .failed(error)
    }
    defer { line.release() }
    do throws(GPIOError) {
      for _ in 0..<beats {
        try line.set(on: true)
        pause(beat)
        try line.set(on: false)
        pause(beat)
      }
    } catch {
      try? line.set(on: false)
      return .failed(error)
    }
    return confirm() ? .confirmed(location: line.location) : .unconfirmed(location: line.location)
  }

  /// Waits up to `limit` for the input at `settings` to change (any edge: the press or its
  /// release), and releases it.
  public func press(_ settings: GPIOLineSettings, within limit: Duration) -> Outcome {
    let line: any GPIOInputLine
    do throws(GPIOError) {
      line = try openInput(settings)
    } catch {
      return .failed(error)
    }
    defer { line.release() }
    do throws(GPIOError) {
      let edge = try line.waitForEdge(timeout: limit)
      return edge == nil ? .unconfirmed(location: line.location) : .confirmed(location: line.location)
    } catch {
      return .failed(error)
    }
  }

  /// Opens the output (`input` false) or input at `settings` and releases it at once: whether
  /// the line can be had, which says nothing about what is wired to it.
  public func opens(_ settings: GPIOLineSettings, input: Bool) -> Outcome {
    do throws(GPIOError) {
      let location: String
      if input {
        let line = try openInput(settings)
        location = line.location
        line.release()
      } else {
        let line = try openOutput(settings)
        location = line.location
        line.release()
      }
      return .unconfirmed(location: location)
    } catch {
      return .failed(error)
    }
  }
}
