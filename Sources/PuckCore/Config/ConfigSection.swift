/// A `[section]` of `puckd.conf`, declared once in `DockConfig.sections`: its name, what it is
/// for, what its header alone does, and its keys in the order the documentation lists them.
public struct ConfigSection: Sendable {
  /// The name between the brackets: `enforcement`.
  public let name: String
  /// What the section is for, as the man page says it.
  public let doc: String
  /// Fits the part the header stands for (`[buzzer]`: a buzzer on the default line); nil for a
  /// section whose settings are always there.
  let fit: (@Sendable (inout DockConfig) -> Void)?
  /// Its keys.
  public let keys: [ConfigKey]

  init(_ name: String, doc: String, fit: (@Sendable (inout DockConfig) -> Void)? = nil, keys: [ConfigKey]) {
    self.name = name
    self.doc = doc
    self.fit = fit
    self.keys = keys
  }
}
