/// One direction of the PN532's serial line (HSU) at a baud rate: when each byte has crossed
/// it. Pure: the emulator's read thread writes each byte no earlier than this says.
///
/// A byte takes 10 bit times (start bit, 8 data bits, stop bit): about 87 µs at 115200 baud,
/// the PN532's power-on HSU rate and libnfc's `pn532_uart` default. Bytes queue behind those
/// still on the line.
public struct UARTLine: Hashable, Sendable {
  /// The time one byte takes on the line.
  public let byteTime: Duration
  /// When the last byte handed to the line has crossed it.
  public private(set) var busyUntil: Duration = .zero

  /// A line at `baudRate` bits per second.
  public init(baudRate: Int) {
    byteTime = .nanoseconds(10 * 1_000_000_000 / Int64(max(1, baudRate)))
  }

  /// Sends `count` bytes from `now` (or once the line is free): when each has arrived at the
  /// other end, in order.
  public mutating func send(_ count: Int, at now: Duration) -> [Duration] {
    let start = max(now, busyUntil)
    let arrivals = (0..<count).map { start + byteTime * ($0 + 1) }
    if let last = arrivals.last { busyUntil = last }
    return arrivals
  }
}
