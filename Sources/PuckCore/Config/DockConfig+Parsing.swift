extension DockConfig {
  /// Parses the text of `puckd.conf` (docs/DESIGN.md D10): `[section]` headers, `key = value` lines,
  /// blank lines and comments. A comment is a line starting with `#` or `;`, or the rest of a
  /// line from a `#` or `;` that follows a space or tab (as in `ramp = 60s  # to full volume`).
  /// Sections and keys are case-sensitive, as in systemd. The first problem found is thrown;
  /// `file` is only used to name the file in that error.
  public static func parse(_ text: String, file: String) throws(ConfigError) -> DockConfig {
    var parser = ConfigParser(file: file)
    for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
      .enumerated()
    {
      try parser.consume(String(rawLine), lineNumber: index + 1)
    }
    return parser.config
  }
}

/// The state of one pass over a config file.
private struct ConfigParser {
  let file: String
  var config = DockConfig()
  var section: ConfigSection?
  /// Where each `section.key` was first set, to report duplicates.
  var firstSet: [String: Int] = [:]

  init(file: String) {
    self.file = file
  }

  mutating func consume(_ rawLine: String, lineNumber: Int) throws(ConfigError) {
    var line = rawLine
    if lineNumber == 1, line.hasPrefix("\u{FEFF}") { line.removeFirst() }
    line = DockConfig.strippingComment(line).trimmingWhitespace()
    if line.isEmpty { return }

    func fail(_ reason: ConfigError.Reason) -> ConfigError {
      ConfigError(file: file, line: lineNumber, reason: reason)
    }

    if line.hasPrefix("[") {
      guard line.hasSuffix("]"), line.count >= 3 else { throw fail(.malformedLine(line)) }
      let name = String(line.dropFirst().dropLast()).trimmingWhitespace()
      guard let found = DockConfig.section(named: name) else { throw fail(.unknownSection(name)) }
      section = found
      // The presence of these sections is what fits the part; their keys refine it.
      found.fit?(&config)
      return
    }

    guard let equals = line.firstIndex(of: "=") else { throw fail(.malformedLine(line)) }
    let key = String(line[..<equals]).trimmingWhitespace()
    let value = String(line[line.index(after: equals)...]).trimmingWhitespace()
    guard !key.isEmpty, !key.contains(where: { $0 == " " || $0 == "\t" }) else {
      throw fail(.malformedLine(line))
    }
    guard let section else { throw fail(.keyOutsideSection(key: key)) }
    guard let setting = section.keys.first(where: { $0.name == key }) else {
      throw fail(.unknownKey(section: section.name, key: key))
    }
    let qualified = "\(section.name).\(key)"
    if let firstLine = firstSet[qualified] {
      throw fail(.duplicateKey(section: section.name, key: key, firstLine: firstLine))
    }
    firstSet[qualified] = lineNumber
    do throws(ValueProblem) {
      try setting.assign(value, &config)
    } catch {
      throw fail(.badValue(key: key, value: value, problem: error))
    }
  }
}

extension DockConfig {
  /// The line without its comment: everything from a `#` or `;` that starts the line or
  /// follows a space or tab. A `#` inside a value (`pn532_uart:/dev/tty#1`) is kept.
  static func strippingComment(_ line: String) -> String {
    var previous: Character? = nil
    var kept = ""
    for character in line {
      if character == "#" || character == ";",
        previous == nil || previous == " " || previous == "\t"
      {
        return kept
      }
      kept.append(character)
      previous = character
    }
    return kept
  }
}
