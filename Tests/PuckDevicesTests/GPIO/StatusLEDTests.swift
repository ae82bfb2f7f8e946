import GPIODoubles
import PuckCore
import PuckSystem
import Testing

@testable import PuckDevices

@Suite struct StatusLEDTests {
  private let settings = GPIOLineSettings.defaultLED

  @Test func isDarkWhenMade() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let led = StatusLED(settings: settings, clock: clock, openLine: line.opener)
    #expect(line.drives == [Drive(0, false)])
    #expect(led.indication == .off)
    #expect(led.health == DeviceCondition(.ok, "testchip line 18: off"))
  }

  @Test func steadyIsOnWithNothingDue() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let led = StatusLED(settings: settings, clock: clock, openLine: line.opener)
    clock.set(milliseconds: 20)
    led.show(.steady)
    #expect(led.step() == nil)
    clock.set(milliseconds: 60_000)
    led.step()
    #expect(line.drives == [Drive(0, false), Drive(20, true)])
    #expect(led.health.detail == "testchip line 18: steady")
  }

  @Test("a failed check flickers at 4 Hz: 125 ms on, 125 ms off")
  func alertFlickersAtFourHertz() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let led = StatusLED(settings: settings, clock: clock, openLine: line.opener)
    clock.set(milliseconds: 100)
    led.show(.alert)
    while let next = led.step(), next <= ManualLineClock.at(600) {
      clock.set(milliseconds: (next - ManualLineClock.origin).nanoseconds / 1_000_000)
    }
    #expect(
      line.drives == [
        Drive(0, false), Drive(100, true), Drive(225, false), Drive(350, true), Drive(475, false),
        Drive(600, true),
      ])
    #expect(led.health.detail == "testchip line 18: flickering (a check failed)")
  }

  @Test func blinksAtOneHertzAndKeepsItsPhaseWhenShownAgain() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let led = StatusLED(settings: settings, clock: clock, openLine: line.opener)
    clock.set(milliseconds: 100)
    led.show(.blinking)
    var deadlines: [Int64] = []
    while let next = led.step(), next <= ManualLineClock.at(2100) {
      deadlines.append((next - ManualLineClock.origin).nanoseconds / 1_000_000)
      clock.set(milliseconds: deadlines.last ?? 0)
      if deadlines.last == 1100 { led.show(.blinking) }
    }
    #expect(deadlines == [600, 1100, 1600, 2100])
    #expect(
      line.drives == [
        Drive(0, false), Drive(100, true), Drive(600, false), Drive(1100, true), Drive(1600, false),
        Drive(2100, true),
      ])
  }

  @Test func goesFromBlinkingToSteadyToOffAtOnce() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let led = StatusLED(settings: settings, clock: clock, openLine: line.opener)
    led.show(.blinking)
    clock.set(milliseconds: 700)
    led.show(.steady)
    clock.set(milliseconds: 800)
    led.show(.off)
    #expect(led.step() == nil)
    #expect(line.drives == [Drive(0, false), Drive(0, true), Drive(700, true), Drive(800, false)])
  }

  @Test func shutdownTurnsItOffAndReleasesTheLine() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let led = StatusLED(settings: settings, clock: clock, openLine: line.opener)
    led.show(.steady)
    clock.set(milliseconds: 5)
    led.shutdown()
    #expect(line.level == false)
    #expect(line.released)
    led.show(.blinking)
    #expect(line.drives == [Drive(0, false), Drive(0, true), Drive(5, false)])
  }

  @Test func isAbsentWithoutAnLEDSection() {
    let clock = ManualLineClock()
    let led = StatusLED(settings: nil, clock: clock, openLine: RecordingOutputLine(clock: clock).opener)
    led.show(.blinking)
    #expect(
      led.health == DeviceCondition(.absent, "not configured (no [led] section)"))
    #expect(led.step() == nil)
  }
}
