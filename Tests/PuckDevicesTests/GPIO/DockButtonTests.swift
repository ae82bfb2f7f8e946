import GPIODoubles
import Glibc
import PuckCore
import PuckSystem
import Testing

@testable import PuckDevices

@Suite struct ButtonDebouncerTests {
  private func presses(_ edges: [GPIOEdge], window: Duration = .milliseconds(50)) -> [Int64] {
    var debouncer = ButtonDebouncer(window: window)
    return edges.filter { debouncer.isPress($0) }.map {
      ($0.timestamp - ManualLineClock.origin).nanoseconds / 1_000_000
    }
  }

  @Test func aBouncyPressIsOnePress() {
    let bouncy = [
      edge(.rising, 1000), edge(.falling, 1002), edge(.rising, 1003), edge(.falling, 1007),
      edge(.rising, 1012),
      edge(.falling, 1049), edge(.rising, 1049),
    ]
    #expect(presses(bouncy) == [1000])
  }

  @Test func twoPressesFurtherApartThanTheWindowAreTwo() {
    let edges = [edge(.rising, 1000), edge(.falling, 1120), edge(.rising, 1300), edge(.falling, 1400)]
    #expect(presses(edges) == [1000, 1300])
  }

  @Test func bouncesOnReleaseAfterALongHoldAreNoPress() {
    let edges = [
      edge(.rising, 0), edge(.falling, 2000), edge(.rising, 2003), edge(.falling, 2006), edge(.rising, 2010),
      edge(.falling, 2012),
    ]
    #expect(presses(edges) == [0])
  }

  @Test func aShortTapWhoseReleaseFellInTheWindowDoesNotSwallowTheNextPress() {
    // The release at 30 ms is ignored as a bounce; the next press is still a press.
    let edges = [edge(.rising, 0), edge(.falling, 30), edge(.rising, 500)]
    #expect(presses(edges) == [0, 500])
  }

  @Test func anEdgeAtExactlyTheWindowIsTaken() {
    #expect(presses([edge(.rising, 0), edge(.falling, 10), edge(.rising, 50)]) == [0, 50])
  }

  @Test func aClockThatSteppedBackDoesNotSilenceTheButton() {
    #expect(presses([edge(.rising, 10_000), edge(.rising, 100)]) == [10_000, 100])
  }
}

/// The reader's work, one bounded read at a time, against scripted lines (no thread).
@Suite struct ButtonReaderTests {
  private func reader(_ line: ScriptedInputLine, events: Inbox<DockButton.Event>, statuses: Inbox<String>)
    -> ButtonReader
  {
    ButtonReader(
      settings: GPIOLineSettings.defaultButton, debounce: .milliseconds(50), openLine: line.opener,
      onEvent: events.post,
      report: { status in
        switch status {
        case .listening(let location): statuses.post("listening \(location)")
        case .fault(let error): statuses.post("fault \(error)")
        case .stopped: statuses.post("stopped")
        }
      })
  }

  @Test func aBouncyPressCallsTheBypassCallbackOnce() {
    let line = ScriptedInputLine([
      edge(.rising, 100), edge(.falling, 101), edge(.rising, 104), edge(.falling, 400), edge(.rising, 402),
    ])
    let events = Inbox<DockButton.Event>()
    let statuses = Inbox<String>()
    let reader = reader(line, events: events, statuses: statuses)
    var outcomes: [ButtonReader.Outcome] = []
    for _ in 0..<6 { outcomes.append(reader.readOnce(timeout: .milliseconds(200))) }
    #expect(outcomes == [.pressed, .quiet, .quiet, .quiet, .quiet, .quiet])
    #expect(events.all == [.pressed])
    #expect(statuses.all == ["listening testchip line 17"])
  }

  @Test func eachSeparatePressCallsTheCallback() {
    let line = ScriptedInputLine([
      edge(.rising, 100), edge(.falling, 220), edge(.rising, 900), edge(.falling, 1000), edge(.rising, 5000),
    ])
    let events = Inbox<DockButton.Event>()
    let reader = reader(line, events: events, statuses: Inbox())
    for _ in 0..<5 { _ = reader.readOnce(timeout: .milliseconds(200)) }
    #expect(events.all == [.pressed, .pressed, .pressed])
  }

  @Test func aReadFailureReleasesTheLineReportsAFaultAndReopens() {
    let line = ScriptedInputLine([edge(.rising, 100)])
    let events = Inbox<DockButton.Event>()
    let statuses = Inbox<String>()
    let reader = reader(line, events: events, statuses: statuses)
    line.failReads(
      with: GPIOError(function: "gpiod_line_event_wait", code: ENODEV, action: "cannot read testchip line 17")
    )
    #expect(reader.readOnce(timeout: .milliseconds(200)) == .unavailable)
    #expect(line.released)
    line.failReads(with: nil)
    #expect(reader.readOnce(timeout: .milliseconds(200)) == .pressed)
    #expect(
      statuses.all == [
        "listening testchip line 17",
        "fault cannot read testchip line 17: No such device — the chip went away (unplugged?); it is reopened on the next use",
        "listening testchip line 17",
      ])
  }

  @Test func aLineThatCannotBeOpenedIsUnavailable() {
    let statuses = Inbox<String>()
    let reader = ButtonReader(
      settings: GPIOLineSettings.defaultButton, debounce: .milliseconds(50),
      openLine: { _ throws(GPIOError) in
        throw GPIOError(function: "gpiod_chip_open", code: EACCES, action: "cannot open gpiochip0")
      },
      onEvent: { _ in }, report: { if case .fault(let error) = $0 { statuses.post(error.description) } })
    #expect(reader.readOnce(timeout: .milliseconds(200)) == .unavailable)
    #expect(
      statuses.all == [
        "cannot open gpiochip0: Permission denied — puckd needs read-write access to the chip (the udev rule gives /dev/gpiochip* to the puckalarm group)"
      ])
  }
}

/// The button as the daemon uses it: its own reader thread, stopped within a bounded wait.
@Suite struct DockButtonTests {
  @Test func isAbsentWithoutAButtonSectionAndStartsNoThread() {
    let button = DockButton(settings: nil, openLine: ScriptedInputLine().opener) { _ in }
    button.start()
    #expect(
      button.health
        == DeviceCondition(.absent, "not configured (no [button] section)"))
    #expect(button.stop())
  }

  @Test func aPressOnTheReaderThreadReachesTheCallbackAndStopReleasesTheLine() {
    let line = ScriptedInputLine(blocking: true)
    let events = Inbox<DockButton.Event>()
    var timing = DockButton.Timing()
    timing.waitSlice = .milliseconds(20)
    let button = DockButton(
      settings: .defaultButton, timing: timing, openLine: line.opener, onEvent: events.post)
    button.start()
    #expect(eventually { button.health.detail == "testchip line 17: waiting for presses" })
    line.push([edge(.rising, 10), edge(.falling, 12), edge(.rising, 14)])
    #expect(eventually { events.all == [.pressed] })
    #expect(button.stop(timeout: .seconds(2)))
    #expect(line.released)
    #expect(events.all == [.pressed])
    #expect(button.health.detail == "stopped")
  }

  @Test func aFaultyLineIsReportedInHealthAndStopStillEndsTheThread() {
    let button = DockButton(
      settings: .defaultButton,
      openLine: { _ throws(GPIOError) in
        throw GPIOError(function: "gpiod_chip_open", code: ENOENT, action: "cannot open gpiochip0")
      }
    ) { _ in }
    button.start()
    #expect(eventually { button.health.state == .fault })
    #expect(
      button.health.detail
        == "cannot open gpiochip0: No such file or directory — is the chip name right? (gpiodetect lists chips); retrying every 5s"
    )
    // The reader is in its 5 s reopen wait; stop interrupts it.
    #expect(button.stop(timeout: .seconds(1)))
  }
}
