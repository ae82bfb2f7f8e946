/// `puckctl`'s command line, read by each command's declaration: the words, then the operand
/// and `--option VALUE` / `--option=VALUE` / `--switch` in any order, `--` ending the options.
extension ControlRequest {
  /// Parses what follows `puckctl` (and its `--socket`). `standardInput` gives a line for an
  /// argument read from there (`reader add --key-stdin`).
  public init(commandLine arguments: [String], standardInput: () -> String? = { nil }) throws(ControlFailure)
  {
    func refuse(_ message: String) -> ControlFailure { ControlFailure(.badRequest, message) }
    guard let word = arguments.first else { throw refuse("missing command (see puckctl --help)") }
    var rest = arguments.dropFirst()
    var words = [word]
    let subcommands = CommandTable.subcommands(of: word)
    if let last = subcommands.last {
      guard let sub = rest.first else {
        throw refuse("\(word) needs \(subcommands.dropLast().joined(separator: ", ")) or \(last)")
      }
      guard subcommands.contains(sub) else {
        throw refuse("unknown \(word) command '\(sub)' (\(subcommands.joined(separator: ", ")))")
      }
      words.append(sub)
      rest = rest.dropFirst()
    }
    guard let spec = CommandTable.spec(words: words) else {
      throw refuse("unknown command '\(word)' (see puckctl --help)")
    }
    var values: [Field: ArgumentValue] = [:]
    var givenBy: [Field: String] = [:]
    var operands: [String] = []
    var onlyOperands = false
    var iterator = rest.makeIterator()
    while let argument = iterator.next() {
      if onlyOperands || !argument.hasPrefix("--") || argument == "-" {
        if !onlyOperands && argument.hasPrefix("-") && argument.count > 1 && Int(argument) == nil {
          throw refuse("unknown option '\(argument)'")
        }
        operands.append(argument)
        continue
      }
      if argument == "--" {
        onlyOperands = true
        continue
      }
      var name = String(argument.dropFirst(2))
      var inline: String?
      if let equals = name.firstIndex(of: "=") {
        inline = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      guard let option = spec.option(name) else { throw refuse("unknown option '--\(name)'") }
      if let other = givenBy[option.field] {
        throw refuse(other == name ? "--\(name) given twice" : "--\(other) and --\(name): choose one")
      }
      givenBy[option.field] = name
      if inline != nil && !option.kind.takesValue { throw refuse("--\(name) takes no value") }
      switch option.kind {
      case .flag(let value): values[option.field] = .flag(value)
      case .standardInput(let rule):
        let line = standardInput().map { String($0.filter { !$0.isWhitespace }).lowercased() } ?? ""
        guard rule.check(line) else { throw refuse("--\(name): \(rule.rule), on standard input") }
        values[option.field] = .text(line)
      default:
        guard let text = inline ?? iterator.next() else { throw refuse("--\(name) needs a value") }
        do throws(ControlFailure) {
          values[option.field] = try option.kind.parse(text)
        } catch {
          throw refuse(
            error.message.hasPrefix("'") || error.message.hasPrefix("--")
              ? error.message : "--\(name): \(error.message)")
        }
      }
    }
    let expected = spec.operand == nil ? 0 : 1
    if let operand = spec.operand, operands.isEmpty { throw refuse("missing \(operand.missing)") }
    if operands.count > expected { throw refuse("unexpected argument '\(operands[expected])'") }
    if let operand = spec.operand {
      do throws(ControlFailure) {
        values[operand.field] = try operand.kind.parse(operands[0])
      } catch {
        throw refuse(
          error.message.hasPrefix("'") ? error.message : "'\(operands[0])' is not accepted: \(error.message)")
      }
    }
    self = try ControlRequest(spec.name, values).validated()
  }
}

extension ArgumentKind {
  /// A value as a person types it; the refusal says why, starting with the text when it
  /// quotes it.
  func parse(_ text: String) throws(ControlFailure) -> ArgumentValue {
    func refuse(_ error: some Error) -> ControlFailure { ControlFailure(.badRequest, "\(error)") }
    switch self {
    case .flag(let value): return .flag(value)
    case .integer(let bounds):
      guard let value = bounds.parse(option: text) else {
        throw ControlFailure(.badRequest, bounds.optionRule)
      }
      return .integer(value)
    case .alarmID:
      guard let id = Int(text) else { throw ControlFailure(.badRequest, "'\(text)' is not an alarm ID") }
      return .integer(id)
    case .text(let rule), .standardInput(let rule):
      guard rule.check(text) else { throw ControlFailure(.badRequest, rule.rule) }
      return .text(text)
    case .days:
      do { return .days(try Weekday.parseSet(text)) } catch { throw refuse(error) }
    case .date:
      do { return .date(try DraftDate(codingText: text)) } catch { throw refuse(error) }
    case .time:
      do { return .time(try WallTime(parsing: text)) } catch { throw refuse(error) }
    case .tagUID:
      do { return .uid(try TagUID(parsing: text)) } catch { throw refuse(error) }
    }
  }
}
