import Glibc
import PuckCore
import Testing

@testable import PuckDevices

/// What status and `puckctl check` tell a builder to do about a line that cannot be opened
/// (issue 26): the file, the section and the key to change, in words that need no libgpiod.
@Suite struct GPIONextStepTests {
  private let file = "/etc/puckalarm/puckd.conf"
  private let buzzer22 = GPIOLineSettings(chip: "gpiochip9", line: .offset(22), activeLow: false)
  private let byName = GPIOLineSettings(line: .name("GPIO22"), activeLow: false)

  @Test("a missing chip: the chips this machine has, the key to set, the name that searches every chip")
  func missingChip() {
    let error = GPIOError(function: "gpiod_chip_open", code: ENOENT, action: "cannot open gpiochip9")
    let step = error.nextStep(
      line: buzzer22, section: "buzzer", configFile: file, chips: ["gpiochip0", "gpiochip10"])
    #expect(
      step
        == "there is no /dev/gpiochip9: gpiodetect lists the chips it has: gpiochip0, gpiochip10; set chip = to "
        + "one of them in [buzzer] of /etc/puckalarm/puckd.conf, or give the line by name (line = GPIO22), "
        + "which puckd looks for on every chip; or, if no buzzer is fitted, remove the [buzzer] section")
  }

  @Test("no chip at all: says so, and offers no chip to choose")
  func noChipAtAll() {
    let error = GPIOError(function: "gpiod_chip_open", code: ENOENT, action: "cannot open gpiochip9")
    let step = error.nextStep(line: buzzer22, section: "led", configFile: file, chips: [])
    #expect(
      step.hasPrefix("this machine has no GPIO chip at all, so no /dev/gpiochip9 and no line 22 of gpiochip9")
    )
    #expect(!step.contains("set chip ="))
    #expect(step.hasSuffix("if no LED is fitted, remove the [led] section of /etc/puckalarm/puckd.conf"))
  }

  @Test("a busy line names who holds it and the key that chooses another")
  func busyLine() {
    let error = GPIOError(
      function: "gpiod_line_request_output_flags", code: EBUSY,
      action: "cannot request gpiochip0 line 22 (GPIO22)",
      holder: "foo")
    #expect(
      error.description.hasSuffix(
        "— \"foo\" holds the line (gpioinfo shows it): stop that program, or wire and configure another line")
    )
    #expect(GPIOError.held(error, by: "foo") == error, "the request's path and a test's say the same")
    #expect(
      error.nextStep(line: byName, section: "buzzer", configFile: file, chips: ["gpiochip0"])
        == "the line GPIO22 is held by \"foo\": stop that program (or remove the config.txt overlay that claims "
        + "the pin), or choose another free line: line = in [buzzer] of /etc/puckalarm/puckd.conf "
        + "(gpioinfo gpiochip0 shows which are free)")
  }

  @Test("a line another of the dock's parts holds: the sections must name different lines")
  func lineTakenByTheDock() {
    let error = GPIOError(
      function: "gpiod_chip_request_lines", code: EBUSY, action: "cannot request gpiochip0 line 22",
      holder: "puckd-buzzer")
    let step = error.nextStep(
      line: GPIOLineSettings(line: .offset(22), activeLow: false), section: "led", configFile: file,
      chips: ["gpiochip0"])
    #expect(
      step.hasPrefix("the line 22 of gpiochip0 is the buzzer's already: [buzzer], [button] and [led] must"))
    #expect(step.contains("line = in [led] of /etc/puckalarm/puckd.conf"))
  }

  @Test("a busy line whose holder is unknown still says where to look")
  func busyLineHolderUnknown() {
    let error = GPIOError(function: "gpiod_line_request_output_flags", code: EBUSY, action: "cannot request")
    let step = error.nextStep(line: byName, section: "button", configFile: file, chips: ["gpiochip0"])
    #expect(step.hasPrefix("another program holds the line GPIO22 (gpioinfo gpiochip0 names it)"))
  }

  @Test("a line name no chip has, and an offset the chip does not have")
  func wrongLine() {
    let missing = GPIOError(
      function: GPIOLineRequest.findFunction, code: ENOENT, action: "cannot find line GPIO99", hint: "…")
    let named = GPIOLineSettings(line: .name("GPIO99"), activeLow: false)
    let step = missing.nextStep(line: named, section: "buzzer", configFile: file, chips: ["gpiochip0"])
    #expect(step.hasPrefix("no GPIO chip has a line called GPIO99"))
    #expect(step.contains("correct line = in [buzzer] of /etc/puckalarm/puckd.conf"))
    let offset = GPIOError(
      function: "gpiod_chip_get_line", code: EINVAL, action: "cannot find gpiochip0 line 99")
    let far = GPIOLineSettings(line: .offset(99), activeLow: false)
    #expect(
      offset.nextStep(line: far, section: "buzzer", configFile: file, chips: ["gpiochip0"])
        .hasPrefix("gpiochip0 has no line 99 (gpioinfo gpiochip0 lists its lines"))
  }

  @Test("no permission: the service's unit and, by hand, the puckalarm group")
  func noPermission() {
    let error = GPIOError(function: "gpiod_chip_open", code: EACCES, action: "cannot open gpiochip0")
    let step = error.nextStep(
      line: GPIOLineSettings(line: .offset(17), activeLow: true), section: "button", configFile: file,
      chips: ["gpiochip0"])
    #expect(step.hasPrefix("puckd may not open /dev/gpiochip0:"))
    #expect(step.contains("sudo usermod -aG puckalarm"))
  }

  @Test("the real libgpiod's error for a chip that does not exist leads to the same step")
  func realMissingChip() throws {
    let settings = GPIOLineSettings(chip: "gpiochip-puck-missing", line: .offset(22), activeLow: false)
    do throws(GPIOError) {
      _ = try GPIOLineRequest.output(settings, consumer: "puck-test")
      Issue.record("opened a chip that does not exist")
    } catch {
      let step = error.nextStep(
        line: settings, section: "buzzer", configFile: file, chips: GPIOLineRequest.chipNames())
      #expect(step.contains("no /dev/gpiochip-puck-missing"), "\(step)")
      #expect(step.contains("[buzzer]"))
    }
  }
}
