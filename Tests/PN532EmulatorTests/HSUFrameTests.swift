import Testing

@testable import PN532Emulator

@Suite("HSU frames")
struct HSUFrameTests {
  @Test("an information frame carries LEN, LCS, TFI, data, DCS and the postamble")
  func informationFrame() {
    // GetFirmwareVersion's answer, as libnfc logs it from a real PN532 v1.6.
    let frame = HSUFrame.information([0x03, 0x32, 0x01, 0x06, 0x07], tfi: HSUFrame.chipToHost)
    #expect(frame == [0x00, 0x00, 0xFF, 0x06, 0xFA, 0xD5, 0x03, 0x32, 0x01, 0x06, 0x07, 0xE8, 0x00])
  }

  @Test("more than 254 bytes go in an extended frame the decoder reads back")
  func extendedFrame() {
    let data: [UInt8] = [0x40, 0x01] + (0..<300).map { UInt8(truncatingIfNeeded: $0) }
    let frame = HSUFrame.information(data, tfi: HSUFrame.hostToChip)
    #expect(Array(frame[3...4]) == [0xFF, 0xFF])
    var decoder = HSUFrameDecoder()
    #expect(decoder.feed(frame) == [.command(data)])
  }

  @Test("the decoder skips libnfc's wake-up preamble and finds frames split across reads")
  func preambleAndSplitReads() {
    let wakeUp: [UInt8] = [0x55, 0x55] + [UInt8](repeating: 0, count: 14)
    let sam: [UInt8] = [0x00, 0x00, 0xFF, 0x03, 0xFD, 0xD4, 0x14, 0x01, 0x17, 0x00]
    let diagnose = HSUFrame.information([0x00, 0x00] + Array("libnfc".utf8), tfi: HSUFrame.hostToChip)
    var decoder = HSUFrameDecoder()
    var frames: [HostFrame] = []
    for byte in wakeUp + sam + diagnose {
      frames += decoder.feed([byte])
    }
    #expect(frames == [.command([0x14, 0x01]), .command([0x00, 0x00] + Array("libnfc".utf8))])
  }

  @Test("ACK and NACK frames from the host are told apart from commands")
  func ackAndNack() {
    var decoder = HSUFrameDecoder()
    #expect(decoder.feed(HSUFrame.ack + HSUFrame.nack) == [.ack, .nack])
  }

  @Test("a frame with a bad data checksum is reported damaged and the next one still decodes")
  func damagedFrame() {
    var bad = HSUFrame.information([0x02], tfi: HSUFrame.hostToChip)
    bad[bad.count - 2] &+= 1
    let good = HSUFrame.information([0x02], tfi: HSUFrame.hostToChip)
    var decoder = HSUFrameDecoder()
    #expect(decoder.feed(bad + good) == [.damaged, .command([0x02])])
  }

  @Test("a frame with a bad length checksum is reported damaged")
  func badLengthChecksum() {
    var decoder = HSUFrameDecoder()
    #expect(decoder.feed([0x00, 0x00, 0xFF, 0x02, 0x01]) == [.damaged])
  }
}
