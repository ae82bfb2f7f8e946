import CGPIOD
import Glibc
import PuckCore

// Finding a line: opening chips and looking lines up by offset or name. With
// GPIOLineRequest.swift, the only files that call libgpiod (see there).
extension GPIOLineRequest {
  /// An opened chip and the line on it.
  struct Located {
    var chip: OpaquePointer
    var offset: UInt32
    var location: String
    /// The 1.6 line handle (owned by the chip); nil with 2.x, which works with offsets.
    var line: OpaquePointer?
  }

  /// Opens the configured chip and finds the line on it. A line given by name is looked for on
  /// the configured chip first, then on every other chip: the Raspberry Pi 5's header moved from
  /// gpiochip4 to gpiochip0 between kernels, and names like `GPIO17` survive such renumbering.
  static func locate(_ settings: GPIOLineSettings) throws(GPIOError) -> Located {
    let configured = chipPath(settings.chip)
    switch settings.line {
    case .offset(let offset):
      let chip = try openChip(configured)
      do {
        return try Located(
          chip: chip, offset: offset, location: "\(chipName(configured)) line \(offset)",
          line: lineHandle(chip, offset: offset, shownAs: "\(chipName(configured)) line \(offset)"))
      } catch {
        gpiod_chip_close(chip)
        throw error
      }
    case .name(let name):
      var searched: [String] = []
      var firstFailure: GPIOError?
      for path in [configured] + allChipPaths().filter({ $0 != configured }) {
        let chip: OpaquePointer
        do {
          chip = try openChip(path)
        } catch {
          // The configured chip is tried first, so its failure is the one reported.
          if firstFailure == nil { firstFailure = error }
          continue
        }
        searched.append(chipName(path))
        if let found = try? find(name, on: chip, path: path) { return found }
        gpiod_chip_close(chip)
      }
      var hint = "no GPIO chip has a line of that name"
      hint +=
        searched.isEmpty ? " (no chip could be opened" : " (searched \(searched.joined(separator: ", "))"
      if let firstFailure { hint += "; \(firstFailure)" }
      hint += "); gpioinfo lists the line names"
      throw GPIOError(function: findFunction, code: ENOENT, action: "cannot find line \(name)", hint: hint)
    }
  }

  /// Opens the chip at `path`: `gpiod_chip_open`.
  static func openChip(_ path: String) throws(GPIOError) -> OpaquePointer {
    try call("gpiod_chip_open", "cannot open \(chipName(path))") { gpiod_chip_open(path) }
  }

  #if !PUCK_GPIOD_V2
    /// The function whose failure a line-name search reports.
    static let findFunction = "gpiod_chip_find_line"

    /// The chip's handle for the line at `offset`: `gpiod_chip_get_line`.
    static func lineHandle(_ chip: OpaquePointer, offset: UInt32, shownAs location: String)
      throws(GPIOError) -> OpaquePointer?
    {
      try call("gpiod_chip_get_line", "cannot find \(location)") { gpiod_chip_get_line(chip, offset) }
    }

    /// The line called `name` on `chip`: `gpiod_chip_find_line` and `gpiod_line_offset`.
    static func find(_ name: String, on chip: OpaquePointer, path: String) throws(GPIOError)
      -> Located
    {
      let line = try call("gpiod_chip_find_line", "cannot find line \(name)") {
        gpiod_chip_find_line(chip, name)
      }
      let offset = UInt32(gpiod_line_offset(line))
      return Located(
        chip: chip, offset: offset, location: "\(chipName(path)) line \(offset) (\(name))", line: line)
    }
  #else
    /// The function whose failure a line-name search reports.
    static let findFunction = "gpiod_chip_get_line_offset_from_name"

    /// 2.x has no per-line handle: a line is an offset in a request.
    static func lineHandle(_ chip: OpaquePointer, offset: UInt32, shownAs location: String)
      throws(GPIOError) -> OpaquePointer?
    {
      nil
    }

    /// The line called `name` on `chip`: `gpiod_chip_get_line_offset_from_name`.
    static func find(_ name: String, on chip: OpaquePointer, path: String) throws(GPIOError)
      -> Located
    {
      let offset = try call("gpiod_chip_get_line_offset_from_name", "cannot find line \(name)") {
        gpiod_chip_get_line_offset_from_name(chip, name)
      }
      return Located(
        chip: chip, offset: UInt32(offset), location: "\(chipName(path)) line \(offset) (\(name))",
        line: nil)
    }
  #endif
}
