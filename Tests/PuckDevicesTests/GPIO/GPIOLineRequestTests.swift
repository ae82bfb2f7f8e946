import Glibc
import PuckCore
import Testing

@testable import PuckDevices

/// The real libgpiod, on a machine that may have no GPIO chip at all: every request here must
/// fail with an error a person can act on. (With a chip, the nonexistent ones still fail.)
@Suite struct GPIOLineRequestTests {
  @Test func theLinkedLibraryHasTheAPIThisWasCompiledFor() {
    #expect(GPIOLineRequest.libraryVersion.hasPrefix("\(GPIOLineRequest.compiledAPI)."))
  }

  @Test func aNonexistentChipIsAClearError() {
    let settings = GPIOLineSettings(chip: "gpiochip-puck-missing", line: .offset(18), activeLow: false)
    #expect {
      try GPIOLineRequest.output(settings, consumer: "puck-test")
    } throws: { error in
      let error = error as? GPIOError
      return error?.function == "gpiod_chip_open" && error?.code == ENOENT
        && error?.description
          == "cannot open gpiochip-puck-missing: No such file or directory — is the chip name right? (gpiodetect lists chips)"
    }
  }

  @Test func aChipPathIsOpenedAsGiven() {
    let settings = GPIOLineSettings(chip: "/nonexistent/gpiochip4", line: .offset(17), activeLow: true)
    #expect {
      try GPIOLineRequest.input(settings, consumer: "puck-test")
    } throws: { error in
      (error as? GPIOError)?.description.hasPrefix("cannot open gpiochip4: No such file or directory") == true
    }
  }

  @Test func aFileThatIsNotAChipIsRefused() {
    let settings = GPIOLineSettings(chip: "/dev/null", line: .offset(0), activeLow: false)
    #expect {
      try GPIOLineRequest.output(settings, consumer: "puck-test")
    } throws: { error in
      // libgpiod 1.6 says ENOTTY, 2.x ENODEV.
      guard let error = error as? GPIOError else { return false }
      return error.description.hasPrefix("cannot open null: ")
        && error.description.hasSuffix(" — that is not a GPIO chip (gpiodetect lists chips)")
    }
  }

  @Test func aLineNameNoChipHasIsAClearError() {
    let settings = GPIOLineSettings(
      chip: "gpiochip-puck-missing", line: .name("PUCK_NO_SUCH_LINE"), activeLow: true)
    #expect {
      try GPIOLineRequest.input(settings, consumer: "puck-test")
    } throws: { error in
      guard let error = error as? GPIOError else { return false }
      return error.code == ENOENT && error.action == "cannot find line PUCK_NO_SUCH_LINE"
        && error.description.contains("no GPIO chip has a line of that name")
        && error.description.contains("gpioinfo lists the line names")
    }
  }

  @Test func theDaemonsDriversReportTheRealFailureAsAFault() {
    let settings = BuzzerSettings(
      output: GPIOLineSettings(chip: "gpiochip-puck-missing", line: .offset(18), activeLow: false))
    let buzzer = BuzzerDriver(settings: settings)
    defer { buzzer.shutdown() }
    buzzer.start()
    #expect(buzzer.health.state == .fault)
    #expect(buzzer.health.detail.hasPrefix("cannot open gpiochip-puck-missing: No such file or directory"))
    let led = StatusLED(
      settings: GPIOLineSettings(chip: "gpiochip-puck-missing", line: .offset(27), activeLow: false))
    defer { led.shutdown() }
    #expect(led.health.state == .fault)
  }
}
