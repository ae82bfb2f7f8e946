/// One kind of `puckd.conf` value: how the text after `=` is read, how a value is written back
/// and what the man page says it accepts. A key of the table (`DockConfig.sections`) pairs a
/// kind with the field it fills.
struct ConfigValue<Value>: Sendable {
  /// What the kind accepts, as the man page says it: `5s to 30min`; nil when the key's doc line
  /// says it.
  var accepts: String?
  /// The value as the config file writes it.
  var format: @Sendable (Value) -> String
  /// Reads the text after `=`, trimmed; empty when nothing follows the `=`.
  var parse: @Sendable (String) throws(ValueProblem) -> Value
}

extension ConfigValue where Value == Duration {
  /// A duration within `range`, bounds included: `500ms`, `60s`, `1min 30s`.
  static func duration(_ range: ClosedRange<Duration>) -> Self {
    let (minimum, maximum) = (range.lowerBound.configText, range.upperBound.configText)
    return Self(accepts: "\(minimum) to \(maximum)", format: { $0.configText }) {
      text throws(ValueProblem) in
      guard !text.isEmpty else { throw .missing("a duration like \(maximum)") }
      guard let duration = Duration(configText: text) else { throw .notADuration }
      guard duration >= range.lowerBound else { throw .belowMinimum(minimum) }
      guard duration <= range.upperBound else { throw .aboveMaximum(maximum) }
      return duration
    }
  }
}

extension ConfigValue where Value == Int {
  /// A volume in percent, 0 to 100, with or without the `%`.
  static var percentage: Self {
    Self(accepts: "0% to 100%", format: { "\($0)%" }) { text throws(ValueProblem) in
      guard !text.isEmpty else { throw .missing("a percentage like 30%") }
      let digits = (text.hasSuffix("%") ? String(text.dropLast()) : text).trimmingWhitespace()
      guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let percent = Int(digits) else {
        throw .notAPercentage
      }
      guard percent <= 100 else { throw .aboveMaximum("100%") }
      return percent
    }
  }

  /// A whole number within `range`; `missing` says what an empty value should have been.
  static func number(_ range: ClosedRange<Int>, missing: String) -> Self {
    Self(accepts: "\(range.lowerBound) to \(range.upperBound)", format: { "\($0)" }) {
      text throws(ValueProblem) in
      guard !text.isEmpty else { throw .missing(missing) }
      guard let number = Int(text) else { throw .notANumber }
      guard number >= range.lowerBound else { throw .belowMinimum("\(range.lowerBound)") }
      guard number <= range.upperBound else { throw .aboveMaximum("\(range.upperBound)") }
      return number
    }
  }

  /// A TCP port, 1 to 65535.
  static var port: Self {
    let range = MQTTSettings.portRange
    return Self(accepts: "\(range.lowerBound) to \(range.upperBound)", format: { "\($0)" }) {
      text throws(ValueProblem) in
      guard let port = Int(text), range.contains(port) else {
        throw text.isEmpty ? .missing("a port like 1883") : .notAPort
      }
      return port
    }
  }
}

extension ConfigValue where Value == Bool {
  /// `yes` or `no`, also `true`/`false`, `on`/`off`, `1`/`0`, in any case.
  static var boolean: Self {
    Self(accepts: "yes or no", format: { $0 ? "yes" : "no" }) { text throws(ValueProblem) in
      switch text.lowercased() {
      case "yes", "true", "on", "1": return true
      case "no", "false", "off", "0": return false
      case "": throw .missing("yes or no")
      default: throw .notABoolean
      }
    }
  }
}

extension ConfigValue where Value == String {
  /// Text that must not be empty (`missing` says what it should have been) and must pass
  /// `isValid`; one that does not is refused with `missing` too.
  static func text(missing: String, isValid: @escaping @Sendable (String) -> Bool = { _ in true }) -> Self {
    Self(format: { $0 }) { text throws(ValueProblem) in
      guard !text.isEmpty, isValid(text) else { throw .missing(missing) }
      return text
    }
  }
}

extension ConfigValue where Value == String? {
  /// Any text; empty means none.
  static var optionalText: Self { optional(unless: { _ in nil }) }

  /// An absolute path; empty means none.
  static var absolutePath: Self { optional { $0.hasPrefix("/") ? nil : .notAnAbsolutePath } }

  /// A name as `RemoteTopic.isValidName` takes it; empty means none.
  static var name: Self { optional { RemoteTopic.isValidName($0) ? nil : .notAName } }

  /// Text that is none when empty, and refused with the problem `problem` finds in it.
  private static func optional(unless problem: @escaping @Sendable (String) -> ValueProblem?) -> Self {
    Self(format: { $0 ?? "" }) { text throws(ValueProblem) in
      if text.isEmpty { return nil }
      if let problem = problem(text) { throw problem }
      return text
    }
  }
}

extension ConfigValue where Value == ReaderDevice {
  /// `auto`, `simulated`, `none`, or any other text as a libnfc connstring.
  static var readerDevice: Self {
    Self(format: { $0.description }) { text throws(ValueProblem) in
      switch text {
      case "": throw .missing("auto, simulated, none or a libnfc connstring like pn532_uart:/dev/serial0")
      case "auto": return .auto
      case "simulated": return .simulated
      case "none": return .none
      default: return .connstring(text)
      }
    }
  }
}

extension ConfigValue where Value == GPIOLine {
  /// A line offset (`22`) or a line name (`GPIO22`).
  static var gpioLine: Self {
    Self(format: { $0.description }) { text throws(ValueProblem) in
      guard !text.isEmpty, !text.contains(where: { $0 == " " || $0 == "\t" }) else { throw .notALine }
      if text.allSatisfy(\.isASCIIDigit) {
        guard let offset = UInt32(text) else { throw .notALine }
        return .offset(offset)
      }
      guard !text.hasPrefix("-"), !text.hasPrefix("+") else { throw .notALine }
      return .name(text)
    }
  }
}

extension ConfigValue where Value == [String] {
  /// Host names separated by spaces or commas, each of labels of letters, digits and `-` joined
  /// by dots (a final dot dropped), kept in lower case; empty means none.
  static var hostNames: Self {
    Self(format: { $0.joined(separator: " ") }) { text throws(ValueProblem) in
      var names: [String] = []
      for name in text.lowercased().split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }) {
        let bare = name.hasSuffix(".") ? name.dropLast() : name
        let labels = bare.split(separator: ".", omittingEmptySubsequences: false)
        guard bare.count <= 253,
          labels.allSatisfy({ label in
            (1...63).contains(label.count) && label.first != "-" && label.last != "-"
              && label.allSatisfy { $0 == "-" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
          })
        else { throw .notAHostName }
        names.append(String(bare))
      }
      return names
    }
  }
}

extension ConfigValue where Value == ListenAddress {
  /// `all`, or an IPv4 or IPv6 address (`ListenAddress(parsing:)`).
  static var listenAddress: Self {
    Self(format: { $0.description }) { text throws(ValueProblem) in
      guard !text.isEmpty else { throw .missing("all, or an IP address like 192.168.1.20") }
      guard let address = ListenAddress(parsing: text) else { throw .notAnAddress }
      return address
    }
  }
}
