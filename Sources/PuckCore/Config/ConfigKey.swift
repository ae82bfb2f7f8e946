/// One key of `puckd.conf`, declared once in `DockConfig.sections`: its name, the field of
/// `DockConfig` it fills, the kind of value it takes and what the man page says of it. Its
/// default is the field's own, in `DockConfig.defaults`.
public struct ConfigKey: Sendable {
  /// The key as written in the file: `retry_delay`.
  public let name: String
  /// What the key is for, as the man page says it.
  public let doc: String
  /// The values it accepts, as the man page shows them (`5s to 30min`); nil when `doc` says it.
  public let accepts: String?
  /// Reads the text after `=` into the field; the part a section header fits is already there.
  let assign: @Sendable (String, inout DockConfig) throws(ValueProblem) -> Void
  /// The field's value in a config, as the file writes it.
  let text: @Sendable (DockConfig) -> String

  /// The key `name`, whose `value` fills `field`.
  init<Value>(
    _ name: String, _ field: WritableKeyPath<DockConfig, Value> & Sendable, _ value: ConfigValue<Value>,
    doc: String
  ) {
    self.name = name
    self.doc = doc
    accepts = value.accepts
    assign = { (text: String, config: inout DockConfig) throws(ValueProblem) in
      config[keyPath: field] = try value.parse(text)
    }
    self.text = { config in value.format(config[keyPath: field]) }
  }

  /// The default as the file writes it: what the key means when its line is left out.
  public var defaultText: String { text(DockConfig.fittedDefaults) }
}
