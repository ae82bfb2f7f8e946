import PuckCore
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
    #expect(presence.observe(puck) == [.scanned(puck, fresh: true)])
    for _ in 0..<10 { #expect(presence.observe(puck).isEmpty) }
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

  @Test("another tag replacing the first is a removal and a fresh scan")
  func replacement() {
    var presence = TagPresence(removalMisses: 2)
    _ = presence.observe(nil)
    _ = presence.observe(puck)
    #expect(presence.observe(other) == [.removed, .scanned(other, fresh: true)])
  }

  @Test("after an interruption the same tag stays silent, and a new one is not fresh")
  func interruption() {
    var presence = TagPresence(removalMisses: 2)
    _ = presence.observe(nil)
    _ = presence.observe(puck)
    presence.interrupt()
    #expect(presence.observe(puck).isEmpty)
    presence.interrupt()
    #expect(presence.observe(other) == [.removed, .scanned(other, fresh: false)])
    presence.interrupt()
    #expect(presence.observe(nil) == [.removed])
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
