import Glibc
import PuckCore

extension GPIOError {
  /// What a builder does next about this failure of `settings`' line, which the `[section]` of
  /// `configFile` names: one sentence for status, `puckctl check` and the log, naming the file,
  /// the section and the key to change. `chips` are the GPIO chips the machine has
  /// (`GPIOLineRequest.chipNames()`), named when the configured one is missing; the function
  /// reads nothing else, so tests give them.
  public func nextStep(line settings: GPIOLineSettings, section: String, configFile: String, chips: [String])
    -> String
  {
    let place = "[\(section)] of \(configFile)"
    let part = section == "led" ? "LED" : section
    let chipPath = GPIOLineRequest.chipPath(settings.chip)
    let chip = GPIOLineRequest.chipName(chipPath)
    let line: String
    let byName: String
    switch settings.line {
    case .name(let name):
      line = name
      byName = name
    case .offset(let offset):
      line = "\(offset) of \(chip)"
      byName = "GPIO\(offset)"
    }
    let unfitted = "or, if no \(part) is fitted, remove the [\(section)] section"
    let chipList = "gpiodetect lists the chips it has: \(chips.joined(separator: ", "))"
    let lookedFor = function == "gpiod_chip_open" || function == GPIOLineRequest.findFunction
    if chips.isEmpty && code == ENOENT && lookedFor {
      return "this machine has no GPIO chip at all, so no \(chipPath) and no line \(line) (is it the board "
        + "the dock is wired on? a container needs /dev/gpiochip* passed through); if no \(part) is fitted, "
        + "remove the [\(section)] section of \(configFile)"
    }
    switch (function, code) {
    case ("gpiod_chip_open", ENOENT):
      return "there is no \(chipPath): \(chipList); set chip = to one of them in \(place), or give the line "
        + "by name (line = \(byName)), which puckd looks for on every chip; \(unfitted)"
    case ("gpiod_chip_open", ENODEV), ("gpiod_chip_open", ENOTTY):
      return "\(chipPath) is not a GPIO chip (\(chipList)): set chip = in \(place) to one of them"
    case (_, EACCES), (_, EPERM):
      return "puckd may not open \(chipPath): the service runs as root and its unit allows the GPIO "
        + "chips (DeviceAllow=char-gpiochip; systemctl cat puckd shows a drop-in that changed it); run "
        + "by hand, join the puckalarm group (sudo usermod -aG puckalarm $USER; the udev rule "
        + "60-puckalarm.rules gives it the chips) and log in again"
    case (_, EBUSY):
      let choose = "choose another free line: line = in \(place) (gpioinfo \(chip) shows which are free)"
      guard let holder else {
        return "another program holds the line \(line) (gpioinfo \(chip) names it): stop it, or \(choose)"
      }
      if holder.hasPrefix("puckd-") {
        return "the line \(line) is the \(holder.dropFirst("puckd-".count))'s already: [buzzer], [button] "
          + "and [led] must name different lines, so \(choose); or a second puckd runs "
          + "(systemctl status puckd)"
      }
      return "the line \(line) is held by \"\(holder)\": stop that program (or remove the config.txt "
        + "overlay that claims the pin), or \(choose)"
    case (GPIOLineRequest.findFunction, ENOENT):
      return "no GPIO chip has a line called \(line) (gpioinfo lists each chip's line names, GPIO2 to "
        + "GPIO27 on a Raspberry Pi): correct line = in \(place), or give the line's offset and its chip; "
        + "\(unfitted)"
    case (_, EINVAL):
      return "\(chip) has no line \(settings.line) (gpioinfo \(chip) lists its lines; a Raspberry Pi's "
        + "header line GPIO22 is offset 22): correct line = in \(place)"
    case (_, ENODEV), (_, ENXIO):
      return "the chip went away (unplugged, or its driver unloaded); puckd opens the line again when "
        + "it next uses it, or restart it: sudo systemctl restart puckd"
    case ("pthread_create", _), ("pipe", _):
      return "puckd could not start the \(part)'s thread (out of memory or processes?): "
        + "sudo systemctl restart puckd"
    default:
      return "check the wiring and gpioinfo \(chip), then \(place); \(unfitted) "
        + "(journalctl -u puckd has the details)"
    }
  }
}
