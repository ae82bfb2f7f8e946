import Glibc

/// Where GPIO chips are: paths and names under /dev, without libgpiod.
extension GPIOLineRequest {
  /// `/dev/gpiochipN` for a bare chip name, the path itself for anything with a slash.
  static func chipPath(_ chip: String) -> String {
    chip.contains("/") ? chip : "/dev/\(chip)"
  }

  /// `gpiochip4` for `/dev/gpiochip4`.
  static func chipName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }

  /// The names of the machine's GPIO chips (`gpiochip0`, `gpiochip1`, …), in chip-number order,
  /// as `gpiodetect` lists them: what a builder may set `chip =` to.
  public static func chipNames() -> [String] {
    allChipPaths().map(chipName)
  }

  /// Every `/dev/gpiochipN`, in chip-number order. (libgpiod 1.6's chip iterator and 2.x's
  /// tools scan /dev the same way; doing it here keeps one search for both APIs.)
  static func allChipPaths() -> [String] {
    guard let directory = opendir("/dev") else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) {
        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name.hasPrefix("gpiochip"), Int(name.dropFirst("gpiochip".count)) != nil { names.append(name) }
    }
    return names.sorted { Int($0.dropFirst(8)) ?? 0 < Int($1.dropFirst(8)) ?? 0 }.map { "/dev/\($0)" }
  }
}
