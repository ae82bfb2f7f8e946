/// What changed in the dock during one turn of the loop. Components mark it as it happens; the
/// daemon acts on it once, when the turn ends (`TurnEnd.run`), so status, the LED,
/// `STATUS=` and Home Assistant's state are rendered once per turn however many components
/// changed in it (systemd's timesyncd defers its work to the same point: an `sd_event` defer
/// source). Marking is all a component does; it never calls the others.
final class DockChanges {
  struct Kind: OptionSet {
    let rawValue: UInt8

    /// Something status shows: render it.
    static let status = Kind(rawValue: 1 << 0)
    /// A device, a reader or the pairing changed: a pre-flight check waiting for answers may
    /// have them, and one that failed may pass now (`PreflightCheck.somethingChanged`).
    static let devices = Kind(rawValue: 1 << 1)
    /// Whether the readers should poll may have changed (a wake-up, a pairing, a rehearsal).
    static let polling = Kind(rawValue: 1 << 2)
    /// The remote readers were enrolled or removed (Home Assistant's tag scanners).
    static let readers = Kind(rawValue: 1 << 3)
  }

  private(set) var pending: Kind = []

  func mark(_ kind: Kind) {
    pending.formUnion(kind)
  }

  /// What was marked since the last call, cleared.
  func take() -> Kind {
    defer { pending = [] }
    return pending
  }
}
