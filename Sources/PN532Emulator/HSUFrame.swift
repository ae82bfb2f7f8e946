/// The PN532's high-speed UART (HSU) framing, as NXP's user manual (UM0701-02 §6.2) defines it
/// and libnfc's `pn532_uart` driver speaks it:
///
///     information  00 00 FF LEN LCS TFI PD0 … PDn DCS 00      LEN = TFI + data, LEN + LCS ≡ 0
///     extended     00 00 FF FF FF LENM LENL LCS TFI … DCS 00   for more than 254 bytes
///     ACK          00 00 FF 00 FF 00
///     NACK         00 00 FF FF 00 00
///     error        00 00 FF 01 FF 7F 81 00                     the chip's "syntax error"
///
/// TFI is D4 from host to chip and D5 back; TFI + data + DCS ≡ 0 (mod 256).
public enum HSUFrame {
  /// The frame identifier of host-to-chip frames.
  public static let hostToChip: UInt8 = 0xD4
  /// The frame identifier of chip-to-host frames.
  public static let chipToHost: UInt8 = 0xD5

  /// The acknowledgement the chip sends as soon as it has a well-formed frame (and the host
  /// sends to abort a running command).
  public static let ack: [UInt8] = [0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00]
  /// The host's request to send the last response again.
  public static let nack: [UInt8] = [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00]
  /// The chip's application-level error frame (a command it cannot parse).
  public static let syntaxError: [UInt8] = [0x00, 0x00, 0xFF, 0x01, 0xFF, 0x7F, 0x81, 0x00]

  /// Wraps `data` (command code first) in an information frame with frame identifier `tfi`,
  /// switching to the extended form when it does not fit a normal frame.
  public static func information(_ data: [UInt8], tfi: UInt8) -> [UInt8] {
    let length = data.count + 1
    var frame: [UInt8] = [0x00, 0x00, 0xFF]
    if length <= 0xFE {
      frame += [UInt8(length), UInt8(truncatingIfNeeded: 0x100 - length)]
    } else {
      let high = UInt8(truncatingIfNeeded: length >> 8)
      let low = UInt8(truncatingIfNeeded: length)
      frame += [0xFF, 0xFF, high, low, 0 &- (high &+ low)]
    }
    frame.append(tfi)
    frame += data
    frame.append(0 &- data.reduce(tfi, &+))
    frame.append(0x00)
    return frame
  }
}

/// One thing the host sent, as the decoder recognised it.
public enum HostFrame: Hashable, Sendable {
  /// A command: its code and parameters (the bytes after TFI D4).
  case command([UInt8])
  /// An ACK: from a host, it aborts the running command.
  case ack
  /// A NACK: the host wants the last response again.
  case nack
  /// A frame whose length or data checksum, or frame identifier, was wrong; it is dropped,
  /// as the chip drops it.
  case damaged
}

/// Finds frames in the byte stream the host writes, across arbitrary read boundaries.
///
/// Anything before a start code (the 0x55 wake-up preamble, runs of 00, postambles) is
/// skipped, as the chip skips it.
public struct HSUFrameDecoder: Sendable {
  private enum Stage: Sendable {
    case hunting(previous: UInt8)
    case length
    case lengthChecksum(length: UInt8)
    case extendedLength(collected: [UInt8])
    case body(expected: Int, collected: [UInt8])
    case dataChecksum(body: [UInt8])
  }

  private var stage = Stage.hunting(previous: 0xFF)

  /// A decoder waiting for the first start code.
  public init() {}

  /// Feeds bytes as they arrive; returns the frames they complete.
  public mutating func feed(_ bytes: some Sequence<UInt8>) -> [HostFrame] {
    var frames: [HostFrame] = []
    for byte in bytes {
      if let frame = step(byte) { frames.append(frame) }
    }
    return frames
  }

  private mutating func step(_ byte: UInt8) -> HostFrame? {
    switch stage {
    case .hunting(let previous):
      stage = previous == 0x00 && byte == 0xFF ? .length : .hunting(previous: byte)
      return nil
    case .length:
      stage = .lengthChecksum(length: byte)
      return nil
    case .lengthChecksum(let length):
      stage = .hunting(previous: byte)
      switch (length, byte) {
      case (0x00, 0xFF): return .ack
      case (0xFF, 0x00): return .nack
      case (0xFF, 0xFF):
        stage = .extendedLength(collected: [])
        return nil
      case (0x01, 0xFF):
        return .damaged  // an error frame; no host sends one
      default:
        guard length &+ byte == 0, length > 0 else { return .damaged }
        stage = .body(expected: Int(length), collected: [])
        return nil
      }
    case .extendedLength(var collected):
      collected.append(byte)
      guard collected.count == 3 else {
        stage = .extendedLength(collected: collected)
        return nil
      }
      let length = Int(collected[0]) << 8 | Int(collected[1])
      guard collected[0] &+ collected[1] &+ collected[2] == 0, length > 0 else {
        stage = .hunting(previous: byte)
        return .damaged
      }
      stage = .body(expected: length, collected: [])
      return nil
    case .body(let expected, var collected):
      collected.append(byte)
      stage =
        collected.count == expected
        ? .dataChecksum(body: collected) : .body(expected: expected, collected: collected)
      return nil
    case .dataChecksum(let body):
      stage = .hunting(previous: 0xFF)
      guard body.reduce(byte, &+) == 0, body.first == HSUFrame.hostToChip, body.count >= 2 else {
        return .damaged
      }
      return .command(Array(body.dropFirst()))
    }
  }
}
