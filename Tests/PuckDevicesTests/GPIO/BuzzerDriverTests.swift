import GPIODoubles
import Glibc
import PuckCore
import PuckSystem
import Testing

@testable import PuckDevices

/// The buzzer's timing, stepped by hand on a manual clock against a recording line.
@Suite struct BuzzerDriverTests {
  private func driver(
    _ clock: ManualLineClock, _ line: RecordingOutputLine, settings: BuzzerSettings? = buzzerSettings
  )
    -> BuzzerDriver
  {
    BuzzerDriver(settings: settings, clock: clock, openLine: line.opener)
  }

  /// Steps the driver at every deadline it asks for, until `milliseconds`.
  private func run(_ buzzer: BuzzerDriver, _ clock: ManualLineClock, until milliseconds: Int64) {
    while let next = buzzer.step(), next <= ManualLineClock.at(milliseconds) {
      #expect(next > clock.now(), "a deadline must lie ahead")
      clock.set(milliseconds: (next - ManualLineClock.origin).nanoseconds / 1_000_000)
    }
    clock.set(milliseconds: milliseconds)
    buzzer.step()
  }

  @Test func isDrivenOffWhenMade() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let buzzer = driver(clock, line)
    #expect(line.drives == [Drive(0, false)])
    #expect(buzzer.health == DeviceCondition(.ok, "testchip line 18: off"))
    #expect(buzzer.step() == nil)
  }

  @Test func ringsTheConfiguredBeatAtExactTimes() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let buzzer = driver(clock, line)
    clock.set(milliseconds: 1000)
    buzzer.start()
    #expect(buzzer.step() == ManualLineClock.at(1500))
    run(buzzer, clock, until: 4200)
    #expect(
      line.drives == [
        Drive(0, false), Drive(1000, true), Drive(1500, false), Drive(2000, true), Drive(2500, false),
        Drive(3000, true), Drive(3500, false), Drive(4000, true),
      ])
    #expect(buzzer.isRinging)
    #expect(buzzer.health.detail == "testchip line 18: ringing (500ms on, 500ms off)")
  }

  @Test func anUnevenBeatKeepsItsPhaseWhenSteppedLate() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let settings = BuzzerSettings(
      output: buzzerSettings.output, on: .milliseconds(200), off: .milliseconds(800))
    let buzzer = driver(clock, line, settings: settings)
    buzzer.start()
    // A step that comes 30 ms late drives the late level but the next deadline stays on the beat.
    clock.set(milliseconds: 230)
    #expect(buzzer.step() == ManualLineClock.at(1000))
    clock.set(milliseconds: 1000)
    #expect(buzzer.step() == ManualLineClock.at(1200))
    #expect(line.drives == [Drive(0, false), Drive(0, true), Drive(230, false), Drive(1000, true)])
  }

  @Test func startingAgainWhileRingingDoesNotRestartTheBeat() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let buzzer = driver(clock, line)
    buzzer.start()
    clock.set(milliseconds: 300)
    buzzer.start()
    #expect(buzzer.step() == ManualLineClock.at(500))
    #expect(line.drives == [Drive(0, false), Drive(0, true)])
  }

  @Test func stopDrivesOffAtOnceAndNothingIsDueAfterwards() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let buzzer = driver(clock, line)
    buzzer.start()
    clock.set(milliseconds: 1234)
    buzzer.stop()
    #expect(line.drives == [Drive(0, false), Drive(0, true), Drive(1234, false)])
    #expect(!buzzer.isRinging)
    #expect(buzzer.step() == nil)
    clock.set(milliseconds: 5000)
    buzzer.step()
    #expect(line.level == false)
    #expect(line.drives.count == 3)
  }

  @Test func stopDrivesOffEvenWhenTheLineIsBelievedOff() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let buzzer = driver(clock, line)
    clock.set(milliseconds: 10)
    buzzer.stop()
    #expect(line.drives == [Drive(0, false), Drive(10, false)])
  }

  @Test func chirpsThreeTimesWhenNotRinging() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let buzzer = driver(clock, line)
    clock.set(milliseconds: 100)
    buzzer.chirp(.wrongPuck)
    run(buzzer, clock, until: 2000)
    #expect(
      line.drives == [
        Drive(0, false), Drive(100, true), Drive(180, false), Drive(260, true), Drive(340, false),
        Drive(420, true), Drive(500, false),
      ])
    #expect(buzzer.step() == nil)
    #expect(!buzzer.isRinging)
  }

  @Test("the failed-check warning: two 500 ms tones 250 ms apart, unlike the ring and the wrong-puck chirp")
  func checkFailedChirpIsTwoLongTones() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let buzzer = driver(clock, line)
    clock.set(milliseconds: 100)
    buzzer.chirp(.checkFailed)
    run(buzzer, clock, until: 3000)
    #expect(
      line.drives == [
        Drive(0, false), Drive(100, true), Drive(600, false), Drive(850, true), Drive(1350, false),
      ])
    #expect(buzzer.step() == nil)
    #expect(!buzzer.isRinging)
  }

  @Test func aChirpDuringARingChangesNothing() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let buzzer = driver(clock, line)
    buzzer.start()
    clock.set(milliseconds: 100)
    buzzer.chirp(.wrongPuck)
    #expect(buzzer.step() == ManualLineClock.at(500))
    run(buzzer, clock, until: 1100)
    #expect(line.drives == [Drive(0, false), Drive(0, true), Drive(500, false), Drive(1000, true)])
    #expect(buzzer.isRinging)
  }

  @Test func aRingInterruptsAChirp() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let buzzer = driver(clock, line)
    buzzer.chirp(.wrongPuck)
    run(buzzer, clock, until: 100)
    buzzer.start()
    run(buzzer, clock, until: 700)
    #expect(
      line.drives == [Drive(0, false), Drive(0, true), Drive(80, false), Drive(100, true), Drive(600, false)])
  }

  @Test func shutdownDrivesOffReleasesAndIgnoresLaterCommands() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let buzzer = driver(clock, line)
    buzzer.start()
    clock.set(milliseconds: 200)
    buzzer.shutdown()
    #expect(line.drives == [Drive(0, false), Drive(0, true), Drive(200, false)])
    #expect(line.released)
    buzzer.start()
    buzzer.chirp(.wrongPuck)
    #expect(buzzer.step() == nil)
    #expect(line.drives.count == 3)
  }

  @Test func isAbsentWithoutABuzzerSection() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let buzzer = driver(clock, line, settings: nil)
    buzzer.start()
    #expect(buzzer.step() == nil)
    #expect(line.opens == 0)
    #expect(
      buzzer.health
        == DeviceCondition(.absent, "not configured (no [buzzer] section)"))
  }

  @Test func aLineThatCannotBeOpenedIsAFaultAndIsRetriedAtTheNextRing() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    line.failOpens(
      with: GPIOError(function: "gpiod_chip_open", code: ENOENT, action: "cannot open gpiochip9"))
    let buzzer = driver(clock, line)
    #expect(buzzer.health.state == .fault)
    #expect(
      buzzer.health.detail
        == "cannot open gpiochip9: No such file or directory — is the chip name right? (gpiodetect lists chips)"
    )
    line.failOpens(with: nil)
    clock.set(milliseconds: 50)
    buzzer.start()
    #expect(line.opens == 2)
    #expect(line.drives == [Drive(50, true)])
    #expect(buzzer.health.state == .ok)
  }

  @Test func aFailedWriteIsReportedAndTheNextChangeTriesAgain() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let buzzer = driver(clock, line)
    line.failSets(
      with: GPIOError(function: "gpiod_line_set_value", code: EIO, action: "cannot drive testchip line 18"))
    buzzer.start()
    #expect(buzzer.health.state == .fault)
    #expect(buzzer.health.detail == "cannot drive testchip line 18: Input/output error")
    line.failSets(with: nil)
    clock.set(milliseconds: 10)
    buzzer.step()
    #expect(line.drives == [Drive(0, false), Drive(10, true)])
    #expect(buzzer.health.state == .ok)
  }

  /// The daemon's form: its own timing thread on the system clock. Real time, but only a few
  /// beats of 20 ms, and it waits for what the thread did rather than for fixed times.
  @Test func theOwnThreadDrivesTheBeatAndShutdownLeavesTheLineOff() {
    let clock = ManualLineClock()
    let line = RecordingOutputLine(clock: clock)
    let settings = BuzzerSettings(
      output: buzzerSettings.output, on: .milliseconds(20), off: .milliseconds(20))
    let buzzer = BuzzerDriver(settings: settings, openLine: line.opener)
    buzzer.start()
    #expect(eventually { line.drives.count >= 5 })
    buzzer.shutdown()
    #expect(line.level == false)
    #expect(line.released)
    // Only changes are driven, so the levels alternate, up to the forced off of shutdown.
    let beats = line.drives.dropLast()
    #expect(zip(beats, beats.dropFirst()).allSatisfy { $0.on != $1.on }, "\(line.drives)")
  }
}
