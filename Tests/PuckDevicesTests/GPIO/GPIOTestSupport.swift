import GPIODoubles
import PuckCore

@testable import PuckDevices

let buzzerSettings = BuzzerSettings(
  output: GPIOLineSettings(line: .offset(18), activeLow: false), on: .milliseconds(500),
  off: .milliseconds(500))
