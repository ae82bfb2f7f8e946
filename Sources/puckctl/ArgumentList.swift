/// A command's arguments split into positionals, `--option VALUE` / `--option=VALUE` and
/// `--flag`, rejecting anything the command does not know.
struct ArgumentList {
  private(set) var positionals: [String] = []
  private var values: [String: String] = [:]
  private var flags: Set<String> = []

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

  /// Whether `--name` was given.
  func flag(_ name: String) -> Bool { flags.contains(name) }

  /// Exactly `count` positionals, or a usage error naming what is expected.
  func expectPositionals(_ count: Int, _ what: String) throws(UsageError) {
    if positionals.count < count { throw UsageError("missing \(what)") }
    if positionals.count > count { throw UsageError("unexpected argument '\(positionals[count])'") }
  }
}
