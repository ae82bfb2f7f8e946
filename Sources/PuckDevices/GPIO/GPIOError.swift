import Glibc
import PuckCore
import PuckSystem

/// A failed libgpiod call: the C function, the `errno` it left and its `strerror` text, what
/// puckd was trying to do, and what the person reading status should check.
public struct GPIOError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The libgpiod function that failed, e.g. `gpiod_chip_open`.
  public let function: String
  /// The `errno` value, e.g. `ENOENT`.
  public let code: Int32
  /// `strerror(code)`, e.g. "No such file or directory".
  public let message: String
  /// What failed, in the reader's words: "cannot open gpiochip0".
  public let action: String
  /// What to check, e.g. "is the chip name right? (gpiodetect lists chips)"; nil when there is
  /// nothing useful to say.
  public let hint: String?
  /// For a line another request holds (`EBUSY`), the consumer label the kernel reports for it
  /// (what `gpioinfo` shows: a program's name, `sysfs`, or a driver's); nil when unknown.
  public let holder: String?

  /// An error of `function` with `errno` value `code` while doing `action`; without a `hint`,
  /// the usual advice for that function and code is used. `holder` names who holds a busy line.
  public init(function: String, code: Int32, action: String, hint: String? = nil, holder: String? = nil) {
    self.function = function
    self.code = code
    self.message = SystemError(function, code: code).systemMessage
    self.action = action
    self.holder = holder
    self.hint = hint ?? Self.standardHint(function: function, code: code, holder: holder)
  }

  /// `error` (a request refused with `EBUSY`) with the program holding the line named by its
  /// consumer label, so status, `puckctl check` and `puckctl setup` say which program to stop
  /// (`holder`, and the hint). The label comes from the kernel, set by any program: bounded.
  public static func held(_ error: GPIOError, by consumer: String) -> GPIOError {
    GPIOError(
      function: error.function, code: error.code, action: error.action,
      holder: LogText.bounded(consumer, limit: 64))
  }

  /// One line for the log and for status: "cannot open gpiochip0: No such file or directory —
  /// is the chip name right? (gpiodetect lists chips)".
  public var description: String {
    let base = "\(action): \(message)"
    guard let hint else { return base }
    return "\(base) — \(hint)"
  }

  /// The advice for the failures people actually meet when wiring a dock.
  private static func standardHint(function: String, code: Int32, holder: String?) -> String? {
    switch code {
    case ENOENT where function == "gpiod_chip_open":
      return "is the chip name right? (gpiodetect lists chips)"
    case ENODEV where function == "gpiod_chip_open", ENOTTY where function == "gpiod_chip_open":
      return "that is not a GPIO chip (gpiodetect lists chips)"
    case EACCES, EPERM:
      return
        "puckd needs read-write access to the chip (the udev rule gives /dev/gpiochip* to the puckalarm group)"
    case EBUSY:
      return holder.map {
        "\"\($0)\" holds the line (gpioinfo shows it): stop that program, or wire and configure another line"
      } ?? "another program holds the line (gpioinfo shows its consumer)"
    case EINVAL where function.hasPrefix("gpiod_chip_get_line") || function.hasPrefix("gpiod_chip_request"):
      return "is the line offset right? (gpioinfo CHIP lists the chip's lines)"
    case ENODEV, ENXIO:
      return "the chip went away (unplugged?); it is reopened on the next use"
    default:
      return nil
    }
  }
}
