import Testing

@testable import PN532Emulator

/// The commands a PN532 carries out over time: InListPassiveTarget with MxRtyPassiveActivation
/// 0xFF (the power-on value) waits for a tag; InAutoPoll answers at its round boundaries.
@Suite("PN532 chip: commands that wait")
struct PN532WaitingCommandsTests {
  private let puck = EmulatedTag(uid: [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44])
  private let puckListing: PN532Chip.Reply = .response(
    [0x01, 0x01, 0x00, 0x44, 0x00, 0x07, 0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44])

  @Test("with MxRtyPassiveActivation 0xFF a listing waits for a tag, and answers when one comes")
  func listingWaitsForATag() {
    var chip = PN532Chip()
    #expect(chip.passiveActivationRetries == 0xFF)
    #expect(chip.handle([0x4A, 0x01, 0x00], at: .seconds(1)) == .waiting)
    #expect(chip.resume(at: .seconds(5)) == nil)
    #expect(chip.nextCheck == nil, "only a change in the field ends this wait")
    chip.tag = puck
    #expect(chip.resume(at: .seconds(6)) == puckListing)
    #expect(chip.pending == nil)
    #expect(chip.resume(at: .seconds(7)) == nil, "answered once")
  }

  @Test("with MxRtyPassiveActivation set lower (libnfc's infinite select off) a listing answers at once")
  func boundedListingAnswersAtOnce() {
    var chip = PN532Chip()
    #expect(chip.handle([0x32, 0x05, 0x00, 0x01, 0x02]) == .response([]))
    #expect(chip.passiveActivationRetries == 0x02)
    #expect(chip.handle([0x4A, 0x01, 0x00]) == .response([0x00]))
    #expect(chip.pending == nil)
  }

  @Test("the host's ACK, or a new command, abandons a waiting listing")
  func abortEndsTheWait() {
    var chip = PN532Chip()
    #expect(chip.handle([0x4A, 0x01, 0x00]) == .waiting)
    chip.abort()
    chip.tag = puck
    #expect(chip.resume(at: .seconds(1)) == nil)
    chip.tag = nil
    #expect(chip.handle([0x4A, 0x01, 0x00]) == .waiting)
    #expect(chip.handle([0x02]) == .response([0x32, 0x01, 0x06, 0x07]))
    chip.tag = puck
    #expect(chip.resume(at: .seconds(1)) == nil)
  }

  @Test("InAutoPoll answers only at a round boundary: a tag laid between two is found at the next")
  func autoPollAnswersAtBoundaries() {
    var chip = PN532Chip()
    // PollNr 20, Period 2 (300 ms), generic 106 kbps type A: what nfc-poll sends for type A.
    #expect(chip.handle([0x60, 20, 2, 0x00], at: .seconds(10)) == .waiting)
    #expect(chip.nextCheck == .seconds(10) + .milliseconds(300))
    chip.tag = puck
    #expect(chip.resume(at: .seconds(10) + .milliseconds(299)) == nil, "between boundaries")
    let reply = chip.resume(at: .seconds(10) + .milliseconds(300))
    #expect(
      reply
        == .response([
          0x01, 0x00, 0x0C, 0x01, 0x00, 0x44, 0x00, 0x07, 0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44,
        ]))
    #expect(chip.pending == nil)
  }

  @Test("InAutoPoll with a tag already there answers at once; with none, no target after PollNr rounds")
  func autoPollRounds() {
    var present = PN532Chip(tag: puck)
    guard case .response(let found) = present.handle([0x60, 3, 1, 0x10]) else {
      Issue.record("a tag in the field is found in the first round")
      return
    }
    #expect(found.first == 0x01)
    var empty = PN532Chip()
    #expect(empty.handle([0x60, 3, 1, 0x10], at: .zero) == .waiting)
    #expect(empty.resume(at: .milliseconds(150)) == nil)
    #expect(empty.nextCheck == .milliseconds(300))
    #expect(empty.resume(at: .milliseconds(300)) == .response([0x00]), "three rounds, none found anything")
    #expect(empty.handle([0x60, 0, 1, 0x10]) == .syntaxError, "PollNr 0 is not allowed")
  }
}
