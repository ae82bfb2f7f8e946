/// How fast the emulator answers.
extension PN532Emulator {
  /// The pace of the emulated chip: at once (the default, which the tests rely on), or
  /// slot-faithful, at a real PN532's pace on its serial line and its RF field.
  public struct Timing: Hashable, Sendable {
    /// The HSU baud rate both directions of the serial line are paced at; nil: as fast as the
    /// pseudo-terminal allows.
    public var baudRate: Int?
    /// The RF time of InListPassiveTarget; nil: a listing answers at once.
    public var rf: PN532Chip.RFTiming?

    /// A pace: the line at `baudRate` (nil: at once), listings with `rf` (nil: at once).
    public init(baudRate: Int?, rf: PN532Chip.RFTiming?) {
      self.baudRate = baudRate
      self.rf = rf
    }

    /// As fast as the pseudo-terminal allows: what the test suite expects.
    public static let instant = Timing(baudRate: nil, rf: nil)

    /// A real chip's pace: the serial line at `baudRate` (115200, the PN532's and libnfc's
    /// default) and listings that take their RF time (`PN532Chip.RFTiming`).
    public static func slotFaithful(baudRate: Int = 115_200, rf: PN532Chip.RFTiming = .init()) -> Timing {
      Timing(baudRate: baudRate, rf: rf)
    }
  }
}
