import PuckCore

/// A command's arguments split into positionals, `--option VALUE` / `--option=VALUE` and
/// `--flag`, rejecting anything the command does not know.
struct ArgumentList {
  private(set) var positionals: [String] = []
  private var values: [String: String] = [:]
  private var flags: Set<String> = []
  /// The command table's options, when parsed for a control command: where bounds come from.
  private var options: [CommandOption] = []

  /// Parses `arguments` for a control command: its options, switches and operand as the
  /// command table has them.
  init(_ arguments: some Sequence<String>, for spec: CommandSpec) throws(UsageError) {
    let switches = spec.options.filter { $0.value == .flag }.map(\.name)
    let valued = spec.options.filter { $0.value != .flag }.map(\.name)
    try self.init(arguments, valued: Set(valued), switches: Set(switches))
    options = spec.options
    try expectPositionals(spec.operand == nil ? 0 : 1, spec.operand?.missing ?? "")
  }

  /// Parses `arguments` for a command that takes the options in `valued` and the flags in `switches`.
  init(_ arguments: some Sequence<String>, valued: Set<String> = [], switches: Set<String> = [])
    throws(UsageError)
  {
    var iterator = arguments.makeIterator()
    var onlyPositionals = false
    while let argument = iterator.next() {
      if onlyPositionals || !argument.hasPrefix("--") || argument == "-" {
        if !onlyPositionals && argument.hasPrefix("-") && argument.count > 1 && Int(argument) == nil {
          throw UsageError("unknown option '\(argument)'")
        }
        positionals.append(argument)
        continue
      }
      if argument == "--" {
        onlyPositionals = true
        continue
      }
      var name = String(argument.dropFirst(2))
      var inlineValue: String?
      if let equals = name.firstIndex(of: "=") {
        inlineValue = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      if switches.contains(name) {
        guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
        flags.insert(name)
      } else if valued.contains(name) {
        guard values[name] == nil else { throw UsageError("--\(name) given twice") }
        guard let value = inlineValue ?? iterator.next() else { throw UsageError("--\(name) needs a value") }
        values[name] = value
      } else {
        throw UsageError("unknown option '--\(name)'")
      }
    }
  }

  /// The value of `--name`, if given.
  func value(_ name: String) -> String? { values[name] }

  /// The whole-number option `--name` checked against its bounds in the command table: the
  /// value given, else the table's default (nil when the option has none).
  func integer(_ name: String) throws(UsageError) -> Int? {
    guard case .integer(let bounds)? = options.first(where: { $0.name == name })?.value else {
      throw UsageError("unknown option '--\(name)'")
    }
    guard let text = values[name] else { return bounds.defaultValue }
    guard let value = bounds.parse(option: text) else { throw UsageError(bounds.optionRule) }
    return value
  }

  /// Whether `--name` was given.
  func flag(_ name: String) -> Bool { flags.contains(name) }

  /// Exactly `count` positionals, or a usage error naming what is expected.
  func expectPositionals(_ count: Int, _ what: String) throws(UsageError) {
    if positionals.count < count { throw UsageError("missing \(what)") }
    if positionals.count > count { throw UsageError("unexpected argument '\(positionals[count])'") }
  }
}
