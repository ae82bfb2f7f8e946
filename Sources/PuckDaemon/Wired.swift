/// A back edge between two components, set once by `Daemon.wire()` after both exist: a scan
/// to hand on, an event another component must act on at once. It has no default to fall back
/// on: one that nobody wired traps the first time it is used (in any test that reaches it),
/// instead of doing nothing without a word.
@propertyWrapper
struct Wired<Value> {
  private var value: Value?
  private let name: StaticString

  init(_ name: StaticString) {
    self.name = name
  }

  var wrappedValue: Value {
    get {
      guard let value else { preconditionFailure("\(name) was never wired (Daemon.wire)") }
      return value
    }
    set { value = newValue }
  }
}

/// A `Wired` slot seen without its value's type: its name, and whether it was wired.
protocol WiredSlot {
  var slotName: String { get }
  var isWired: Bool { get }
}

extension Wired: WiredSlot {
  var slotName: String { "\(name)" }
  var isWired: Bool { value != nil }
}
