import GPIODoubles
import Glibc
import PuckCore
import Testing

@testable import PuckDevices

/// The assistant's trial of a wired part against recording lines: what is driven and when, what
/// is asked, what a held line says, and that every line is given back.
@Suite struct PartTrialTests {
  private static let buzzer = GPIOLineSettings(line: .name("GPIO22"), activeLow: false)
  private static let button = GPIOLineSettings(line: .name("GPIO17"), activeLow: true)

  private func trial(_ clock: ManualLineClock, output: RecordingOutputLine, input: ScriptedInputLine)
    -> PartTrial
  {
    PartTrial(openOutput: output.opener, openInput: input.opener, pause: { clock.advance(by: $0) })
  }

  @Test("the buzzer beeps three times, is left off and released, and only then is the person asked")
  func beepsThenAsks() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    var drivesWhenAsked: [Drive] = []
    let outcome = trial(clock, output: line, input: ScriptedInputLine()).signal(Self.buzzer) {
      drivesWhenAsked = line.drives
      return true
    }
    #expect(outcome == .confirmed(location: line.location))
    let beeps = [0, 600, 1200].flatMap { [Drive(Int64($0), true), Drive(Int64($0) + 300, false)] }
    #expect(drivesWhenAsked == beeps)
    #expect(line.drives == beeps, "nothing is driven after the question")
    #expect(line.released)
  }

  @Test("a beep the person did not hear is not confirmed, and the line is still given back")
  func notHeard() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let outcome = trial(clock, output: line, input: ScriptedInputLine()).signal(Self.buzzer) { false }
    #expect(outcome == .unconfirmed(location: line.location))
    #expect(line.released)
  }

  @Test("a line another program holds fails with that program's name and what to do, and nothing is asked")
  func heldLineNamesItsConsumer() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let busy = GPIOError(
      function: "gpiod_line_request_output_flags", code: EBUSY, action: "cannot request gpiochip0 line 22")
    line.failOpens(with: .held(busy, by: "pigpio"))
    var asked = false
    let outcome = trial(clock, output: line, input: ScriptedInputLine()).signal(Self.buzzer) {
      asked = true
      return true
    }
    guard case .failed(let error) = outcome else {
      Issue.record("expected a failure, got \(outcome)")
      return
    }
    #expect(error.description.contains("\"pigpio\" holds the line"), "\(error)")
    #expect(error.description.contains("another line"), "\(error)")
    #expect(!asked)
    #expect(line.drives.isEmpty)
  }

  @Test("a line that fails while beeping is failed, driven off where it can be, and released")
  func failsWhileBeeping() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    line.failSets(with: GPIOError(function: "gpiod_line_set_value", code: ENODEV, action: "cannot drive"))
    let outcome = trial(clock, output: line, input: ScriptedInputLine()).signal(Self.buzzer) { true }
    guard case .failed(let error) = outcome else {
      Issue.record("expected a failure, got \(outcome)")
      return
    }
    #expect(error.code == ENODEV)
    #expect(line.released)
  }

  @Test("a press within the wait confirms the button; none in time does not; either way it is released")
  func buttonPress() {
    let clock = ManualLineClock()
    let pressed = ScriptedInputLine([edge(.rising, 40)])
    let quiet = ScriptedInputLine()
    let output = RecordingOutputLine(clock: clock)
    #expect(
      trial(clock, output: output, input: pressed).press(Self.button, within: .seconds(20))
        == .confirmed(location: pressed.location))
    #expect(
      trial(clock, output: output, input: quiet).press(Self.button, within: .seconds(20))
        == .unconfirmed(location: quiet.location))
    #expect(pressed.released && quiet.released)
    #expect(output.opens == 0, "the button's trial opens no output")
  }

  @Test("opening alone drives nothing and claims nothing about the wiring")
  func opensOnly() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let input = ScriptedInputLine([edge(.falling, 0)])
    let trial = trial(clock, output: line, input: input)
    #expect(trial.opens(Self.buzzer, input: false) == .unconfirmed(location: line.location))
    #expect(trial.opens(Self.button, input: true) == .unconfirmed(location: input.location))
    #expect(line.drives.isEmpty && line.released && input.released)
    #expect(input.waits == 0, "no edge is waited for")
  }
}
