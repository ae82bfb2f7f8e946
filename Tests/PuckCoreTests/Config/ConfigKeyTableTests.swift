import Foundation
import Testing

@testable import PuckCore

/// The key table (`DockConfig.sections`) against what it is the one declaration of: the fields
/// of `DockConfig`, the default file and the man page's key list.
@Suite struct ConfigKeyTableTests {
  /// Every key of the table set to something other than its default.
  static let everyKeyChanged = """
    [reader]
    device = pn532_uart:/dev/serial0
    poll_interval = 50ms
    [audio]
    device = pulse
    sound = /srv/rooster.wav
    start_volume = 45%
    ramp = 90s
    volume_step = 10%
    min_mixer_volume = 50%
    [buzzer]
    chip = gpiochip4
    line = GPIO23
    active_low = yes
    on = 250ms
    off = 1s
    [button]
    chip = gpiochip1
    line = 5
    active_low = no
    [led]
    chip = gpiochip2
    line = 6
    active_low = yes
    [enforcement]
    retry_delay = 5min
    stop_after = 45s
    lock_before = 30min
    ring_timeout = 1h
    missed_grace = 0s
    retry_shrink = 1min
    retry_floor = 30s
    override_delay = 5min
    check_before = 30min
    awake_check = 5min
    [mqtt]
    host = broker.lan
    port = 8883
    username = dock
    password_file = /etc/puckalarm/mqtt.password
    ca_file = /etc/puckalarm/ca.pem
    dock_name = bedroom
    [homeassistant]
    enabled = yes
    discovery_prefix = ha
    bypass_button = yes
    bypass_after = 1min
    bypass_limit = 2
    pre_alarm = 45min
    [web]
    enabled = yes
    address = 127.0.0.1
    port = 8443
    certificate = /etc/puckalarm/web.pem
    key = /etc/puckalarm/web-key.pem
    hostnames = puck.lan Puck.Fritz.Box.
    """

  /// `section.key` of every key of the table, in its order.
  static let tableKeys = DockConfig.sections.flatMap { section in
    section.keys.map { "\(section.name).\($0.name)" }
  }

  /// Every stored value of `value` that is not itself made of named parts, by its path
  /// (`audio.ramp`), described; an optional part that is there counts as its contents.
  static func leaves(of value: Any, at path: String = "", into found: inout [String: String]) {
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .optional {
      if let wrapped = mirror.children.first?.value {
        leaves(of: wrapped, at: path, into: &found)
      } else {
        found[path] = "nil"
      }
    } else if value is CustomStringConvertible || mirror.children.isEmpty {
      found[path] = String(describing: value)
    } else {
      for child in mirror.children {
        leaves(
          of: child.value, at: path.isEmpty ? child.label ?? "?" : "\(path).\(child.label ?? "?")",
          into: &found)
      }
    }
  }

  @Test("every field of DockConfig is filled by a key of the table")
  func everyFieldHasAKey() throws {
    var sampleKeys: [String] = []
    var section = ""
    for line in Self.everyKeyChanged.split(separator: "\n") {
      if line.hasPrefix("[") {
        section = String(line.dropFirst().dropLast())
      } else if let key = line.split(separator: " ").first {
        sampleKeys.append("\(section).\(key)")
      }
    }
    #expect(sampleKeys == Self.tableKeys, "everyKeyChanged sets each key of the table once, in its order")

    let changed = try DockConfig.parse(Self.everyKeyChanged, file: "puckd.conf")
    var before: [String: String] = [:]
    var after: [String: String] = [:]
    Self.leaves(of: DockConfig.fittedDefaults, into: &before)
    Self.leaves(of: changed, into: &after)
    #expect(before.count >= Self.tableKeys.count)
    for (path, value) in before.sorted(by: { $0.key < $1.key }) {
      #expect(after[path] != value, "DockConfig.\(path) is filled by no key of DockConfig.sections")
    }
  }

  @Test("each key reads back its own default, as the man page and the default file show it")
  func defaultsReadBack() throws {
    for section in DockConfig.sections {
      for key in section.keys {
        var config = DockConfig.fittedDefaults
        try key.assign(key.defaultText, &config)
        #expect(config == DockConfig.fittedDefaults, "[\(section.name)] \(key.name) = \(key.defaultText)")
      }
    }
  }

  @Test("the default file has the sections and keys of the table, in its order, and no others")
  func defaultFileListsTheTable() {
    var sections: [String] = []
    var keys: [String] = []
    for line in DockConfig.defaultFileText.split(separator: "\n") {
      let text = line.hasPrefix("#") ? line.dropFirst() : line
      if text.hasPrefix("["), text.hasSuffix("]") {
        sections.append(String(text.dropFirst().dropLast()))
      } else if line.hasPrefix("#"), text.first?.isLetter == true, let equals = text.firstIndex(of: "=") {
        keys.append("\(sections.last ?? "").\(text[..<equals].trimmingCharacters(in: .whitespaces))")
      }
    }
    #expect(sections == DockConfig.sections.map(\.name))
    #expect(keys == Self.tableKeys)
  }

  /// The repository's `man/puckd.8`.
  static func manPage() throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    return try String(contentsOf: root.appendingPathComponent("man/puckd.8"), encoding: .utf8)
  }

  /// The man page's key list as the table writes it: a subsection per section, an entry per key
  /// with its default and the values it accepts.
  static func manKeyList() -> String {
    var lines: [String] = []
    for section in DockConfig.sections {
      lines.append(".SS [\(section.name)]")
      lines += roffText(section.doc)
      for key in section.keys {
        let head = key.defaultText.isEmpty ? "\(key.name) =" : "\(key.name) = \(key.defaultText)"
        lines.append(".TP")
        lines.append(key.accepts.map { ".BR \"\(head)\" \" (\($0))\"" } ?? ".B \"\(head)\"")
        lines += roffText(key.doc)
      }
    }
    return lines.joined(separator: "\n")
  }

  /// `text` as roff lines of at most 100 characters, `-` written as the `\-` a reader can copy,
  /// and a line that would start with a control character (`.`, `'`) kept as text.
  static func roffText(_ text: String) -> [String] {
    var lines: [String] = []
    for word in text.replacingOccurrences(of: "-", with: #"\-"#).split(separator: " ") {
      if let last = lines.last, last.count + 1 + word.count <= 100 {
        lines[lines.count - 1] += " \(word)"
      } else {
        lines.append(word.hasPrefix(".") || word.hasPrefix("'") ? #"\&"# + word : String(word))
      }
    }
    return lines
  }

  @Test("the man page lists the sections and keys of the table, with their defaults, values and docs")
  func manPageListsTheTable() throws {
    let begin = #".\" The keys: DockConfig.sections as ConfigKeyTableTests.manKeyList writes them."#
    let end = #".\" End of the keys."#
    let page = try Self.manPage().components(separatedBy: "\n")
    guard let start = page.firstIndex(of: begin), let stop = page[start...].firstIndex(of: end) else {
      Issue.record("man/puckd.8 has no key list between the lines \(begin) and \(end)")
      return
    }
    let listed = page[(start + 1)..<stop].joined(separator: "\n")
    let expected = Self.manKeyList()
    #expect(listed == expected, "paste this between the markers in man/puckd.8:\n\(expected)")
  }
}
