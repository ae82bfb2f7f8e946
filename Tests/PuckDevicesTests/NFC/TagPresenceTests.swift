import PuckCore
import PuckSystem
import Testing

@testable import PuckDevices

@Suite("Tag presence")
struct TagPresenceTests {
  let puck: TagUID
  let other: TagUID

  init() throws {
    puck = try TagUID(bytes: [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44])
    other = try TagUID(bytes: [0xDE, 0xAD, 0xBE, 0xEF])
  }

  @Test("a tag arriving after the baseline is one fresh scan however many polls see it")
  func arrivalOnce() {
    var presence = TagPresence(removalMisses: 2)
    #expect(presence.observe(nil).isEmpty)
    #expect(presence.observe(nil).isEmpty)
    #expect(presence.observe(puck) == [.scanned(puck, fresh: true)])
    for _ in 0..<10 { #expect(presence.observe(puck).isEmpty) }
  }

  @Test("a tag seen before the reader watched for a settled interval is not fresh")
  func tooSoonNotFresh() {
    var presence = TagPresence(removalMisses: 2)
    #expect(presence.observe(nil).isEmpty)
    #expect(presence.observe(puck) == [.scanned(puck, fresh: false)])
  }

  @Test("a tag in the baseline is not fresh; taken away and presented again, it is")
  func baselineNotFresh() {
    var presence = TagPresence(removalMisses: 2)
    #expect(presence.observe(puck) == [.scanned(puck, fresh: false)])
    #expect(presence.observe(nil).isEmpty)
    #expect(presence.observe(nil) == [.removed])
    #expect(presence.observe(puck) == [.scanned(puck, fresh: true)])
  }

  @Test("one missed poll is not a removal")
  func singleMissIgnored() {
    var presence = TagPresence(removalMisses: 2)
    _ = presence.observe(nil)
    _ = presence.observe(puck)
    #expect(presence.observe(nil).isEmpty)
    #expect(presence.observe(puck).isEmpty)
  }

  @Test("another tag replacing the first is a fresh scan, and the first goes after the settled misses")
  func replacement() {
    var presence = TagPresence(removalMisses: 2)
    _ = presence.observe(nil)
    _ = presence.observe(nil)
    _ = presence.observe(puck)
    #expect(presence.observe(other) == [.scanned(other, fresh: true)])
    #expect(presence.observe(other) == [.removed])
    #expect(presence.present == [other])
  }

  @Test("after an interruption the same tag stays silent, and a new one is not fresh")
  func interruption() {
    var presence = TagPresence(removalMisses: 2)
    _ = presence.observe(nil)
    _ = presence.observe(nil)
    _ = presence.observe(puck)
    presence.interrupt()
    #expect(presence.observe(puck).isEmpty)
    presence.interrupt()
    #expect(presence.observe(other) == [.scanned(other, fresh: false)])
    presence.interrupt()
    #expect(presence.observe(nil).isEmpty, "absence is counted afresh after the gap")
    #expect(presence.observe(nil) == [.removed, .removed])
    #expect(presence.present.isEmpty)
  }

  @Test("the settled interval is time as well as polls: quick polls do not shorten it")
  func settledInterval() {
    var presence = TagPresence(removalMisses: 4, settledAbsence: .milliseconds(400))
    let start = MonotonicInstant.now()
    func at(_ milliseconds: Int) -> MonotonicInstant { start + .milliseconds(milliseconds) }
    // Ten quick polls in 100 ms: watched for polls enough, not for time enough.
    for poll in 0..<10 { #expect(presence.observe(nil, at: at(poll * 10)).isEmpty) }
    #expect(presence.observe(puck, at: at(100)) == [.scanned(puck, fresh: false)])
    // Lifted: six quick misses within 100 ms are not a removal; 400 ms of them are.
    for poll in 1...6 { #expect(presence.observe(nil, at: at(100 + poll * 15)).isEmpty) }
    #expect(presence.observe(puck, at: at(200)).isEmpty, "back within the interval: the same presentation")
    for poll in 1...4 { #expect(presence.observe(nil, at: at(200 + poll * 10)).isEmpty) }
    #expect(presence.observe(nil, at: at(660)) == [.removed])
    #expect(presence.observe(puck, at: at(700)) == [.scanned(puck, fresh: true)])
  }

  /// Issue 8 item 11: the puck lies on the reader with a second sticker; anticollision
  /// answers one, then the other. Nobody lifted the puck, so no scan of it may be fresh.
  @Test("two tags lying together and answering in turn never make a fresh scan")
  func alternatingTagsNeverFresh() {
    var presence = TagPresence(removalMisses: 2)
    var events: [TagReaderEvent] = []
    for poll in 0..<40 {
      events += presence.observe(poll % 2 == 0 ? other : puck)
    }
    #expect(!events.contains { if case .scanned(_, fresh: true) = $0 { true } else { false } }, "\(events)")
  }

  @Test("a sticker that joins a puck lying there does not make the puck fresh either")
  func stickerJoiningNeverFresh() {
    var presence = TagPresence(removalMisses: 2)
    var events = presence.observe(puck)
    for _ in 0..<10 { events += presence.observe(puck) }
    for poll in 0..<40 { events += presence.observe(poll % 3 == 0 ? other : puck) }
    #expect(!events.contains(.scanned(puck, fresh: true)), "\(events)")
  }

  @Test("a restart forgets the tag: still lying there, it is reported again, not fresh")
  func restart() {
    var presence = TagPresence(removalMisses: 2)
    _ = presence.observe(nil)
    _ = presence.observe(puck)
    presence.restart()
    #expect(presence.observe(puck) == [.scanned(puck, fresh: false)])
  }
}

@Suite("Reopen backoff")
struct ReopenBackoffTests {
  @Test("0.5 s doubling to 10 s, and back to 0.5 s after a success")
  func doubling() {
    var backoff = ReopenBackoff(initial: .milliseconds(500), maximum: .seconds(10))
    let delays = (0..<7).map { _ in backoff.delay() }
    #expect(
      delays == [
        .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10),
      ])
    backoff.reset()
    #expect(backoff.delay() == .milliseconds(500))
  }
}
