import Testing

@testable import PN532Emulator

@Suite("PN532 chip")
struct PN532ChipTests {
  @Test("GetFirmwareVersion reports a PN532 v1.6 supporting ISO A, B and 18092")
  func firmware() {
    var chip = PN532Chip()
    #expect(chip.handle([0x02]) == .response([0x32, 0x01, 0x06, 0x07]))
  }

  @Test("the communication test echoes its data, as libnfc's open checks")
  func diagnoseEcho() {
    var chip = PN532Chip()
    let test: [UInt8] = [0x00] + Array("libnfc".utf8)
    #expect(chip.handle([0x00] + test) == .response(test))
  }

  @Test("registers written in one WriteRegister read back in one ReadRegister")
  func registers() {
    var chip = PN532Chip()
    #expect(chip.handle([0x08, 0x63, 0x02, 0x80, 0x63, 0x3C, 0x10]) == .response([]))
    #expect(chip.handle([0x06, 0x63, 0x3C, 0x63, 0x02, 0x63, 0x03]) == .response([0x10, 0x80, 0x00]))
  }

  @Test("InListPassiveTarget at 106 kbps type A lists a 7-byte tag with ATQA, SAK and UID")
  func listsSevenByteTag() {
    var chip = PN532Chip(tag: EmulatedTag(uid: [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44]))
    #expect(
      chip.handle([0x4A, 0x01, 0x00])
        == .response([0x01, 0x01, 0x00, 0x44, 0x00, 0x07, 0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44]))
    #expect(chip.fieldOn)
  }

  @Test("InListPassiveTarget lists a 4-byte MIFARE Classic tag")
  func listsFourByteTag() {
    var chip = PN532Chip(tag: EmulatedTag(uid: [0xDE, 0xAD, 0xBE, 0xEF]))
    #expect(
      chip.handle([0x4A, 0x01, 0x00])
        == .response([0x01, 0x01, 0x00, 0x04, 0x08, 0x04, 0xDE, 0xAD, 0xBE, 0xEF]))
  }

  @Test("with no tag, or for another modulation, InListPassiveTarget finds nothing")
  func listsNothing() {
    var empty = PN532Chip()
    // libnfc turns infinite select off first (MxRtyPassiveActivation 2); at the power-on 0xFF the
    // chip would wait for a tag (PN532WaitingCommandsTests).
    _ = empty.handle([0x32, 0x05, 0x00, 0x01, 0x02])
    #expect(empty.handle([0x4A, 0x01, 0x00]) == .response([0x00]))
    var typeB = PN532Chip(tag: EmulatedTag(uid: [0x01, 0x02, 0x03, 0x04]))
    #expect(typeB.handle([0x4A, 0x01, 0x03, 0x00]) == .response([0x00]))
  }

  @Test("two tags in the field answer InListPassiveTarget in turn, one per listing, as anticollision picks")
  func twoTagsAnswerInTurn() {
    let puck = EmulatedTag(uid: [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44])
    let sticker = EmulatedTag(uid: [0xDE, 0xAD, 0xBE, 0xEF])
    var chip = PN532Chip(tags: [puck, sticker])
    let puckListing: PN532Chip.Reply = .response(
      [0x01, 0x01, 0x00, 0x44, 0x00, 0x07, 0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44])
    let stickerListing: PN532Chip.Reply = .response([
      0x01, 0x01, 0x00, 0x04, 0x08, 0x04, 0xDE, 0xAD, 0xBE, 0xEF,
    ])
    let answers = (0..<4).map { _ in chip.handle([0x4A, 0x01, 0x00]) }
    #expect(answers == [puckListing, stickerListing, puckListing, stickerListing])
    #expect(chip.listedTag == sticker)
    // Selecting by UID lists that tag only, whoever's turn it is.
    #expect(chip.handle([0x4A, 0x01, 0x00, 0xDE, 0xAD, 0xBE, 0xEF]) == stickerListing)
    // The sticker taken away, the puck answers every listing; the listed sticker is gone.
    chip.tags.removeAll { $0 == sticker }
    #expect(chip.handle([0x4A, 0x01, 0x00]) == puckListing)
    #expect(chip.handle([0x4A, 0x01, 0x00]) == puckListing)
    #expect(chip.tag == puck)
  }

  @Test("a listed tag taken away no longer answers InSelect or the presence check")
  func listedTagTakenAway() {
    let sticker = EmulatedTag(uid: [0xDE, 0xAD, 0xBE, 0xEF])
    var chip = PN532Chip(tags: [sticker, EmulatedTag(uid: [0x01, 0x02, 0x03, 0x04])])
    _ = chip.handle([0x4A, 0x01, 0x00])
    #expect(chip.handle([0x00, 0x06]) == .response([0x00]))
    chip.tags.removeFirst()
    #expect(chip.handle([0x00, 0x06]) == .response([0x01]))
    #expect(chip.handle([0x54, 0x01]) == .response([0x01]))
  }

  @Test("RFConfiguration and PowerDown switch the field off")
  func fieldOff() {
    var chip = PN532Chip(tag: EmulatedTag(uid: [0x01, 0x02, 0x03, 0x04]))
    _ = chip.handle([0x4A, 0x01, 0x00])
    #expect(chip.handle([0x32, 0x01, 0x00]) == .response([]))
    #expect(!chip.fieldOn)
    _ = chip.handle([0x32, 0x01, 0x01])
    #expect(chip.handle([0x16, 0xF0]) == .response([0x00]))
    #expect(!chip.fieldOn && chip.poweredDown)
  }

  @Test("target-mode commands and unknown codes get the syntax-error frame")
  func syntaxErrors() {
    var chip = PN532Chip()
    #expect(chip.handle([0x8C, 0x00]) == .syntaxError)
    #expect(chip.handle([0xFE]) == .syntaxError)
  }
}
