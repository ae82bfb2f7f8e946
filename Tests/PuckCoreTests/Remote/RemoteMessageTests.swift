import PuckCore
import Testing

/// The signed frame between a dock and a reader node, and the rules that refuse stale and
/// replayed messages (docs/DESIGN.md M2, M3). The MAC here is a stand-in (a checksum); the
/// real HMAC is `ReaderKey`'s, tested in PuckDevicesTests.
@Suite struct RemoteMessageTests {
  /// A checksum of the whole body, as long as a SHA-256 MAC: any changed byte changes it.
  private static func sign32(_ body: [UInt8]) -> [UInt8] {
    let sum = body.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF_FFFF }
    return (0..<32).map { UInt8(truncatingIfNeeded: sum >> ($0 % 4 * 8)) }
  }
  private static func verify32(_ body: [UInt8], _ mac: [UInt8]) -> Bool { mac == sign32(body) }

  private func message(
    _ kind: RemoteMessage.Kind = .arrived, boot: String = "aa", seq: UInt64 = 1, at: Int64 = 1_000_000
  )
    -> RemoteMessage
  {
    var message = RemoteMessage(reader: "kitchen", boot: boot, seq: seq, sentAt: at, kind: kind)
    if kind == .arrived {
      message.uid = try? TagUID(parsing: "04:A2:3B:11:22:33:44")
      message.fresh = true
    }
    return message
  }

  private func open(_ bytes: [UInt8], from reader: String = "kitchen") throws(RemoteMessageError)
    -> RemoteMessage
  {
    try RemoteFrame.open(bytes, from: reader, on: RemoteTopic.events(reader)) { body, mac in
      Self.verify32(body, mac)
    }
  }

  @Test func aSealedMessageOpensWithItsKey() throws {
    let sent = message()
    let frame = RemoteFrame.seal(sent, sign: Self.sign32)
    #expect(frame[64] == 0x20, "64 hex digits of MAC, then a space")
    #expect(try open(frame) == sent)
  }

  @Test func aChangedBodyOrAnotherKeyIsABadSignature() throws {
    var frame = RemoteFrame.seal(message(), sign: Self.sign32)
    // Change the UID's last digit in the body: 44 → 45.
    let index = try #require(frame.lastIndex(of: UInt8(ascii: "4")))
    frame[index] = UInt8(ascii: "5")
    #expect(throws: RemoteMessageError.badSignature(reader: "kitchen")) { try open(frame) }
    let other = RemoteFrame.seal(message()) { _ in [UInt8](repeating: 7, count: 32) }
    #expect(throws: RemoteMessageError.badSignature(reader: "kitchen")) { try open(other) }
  }

  @Test func withoutASignatureOrOnAnotherReadersTopicItIsRefused() throws {
    #expect(throws: RemoteMessageError.malformed("no signature in front")) {
      try open(Array(#"{"reader":"kitchen"}"#.utf8))
    }
    let notHex = Array(String(repeating: "z", count: 64).utf8) + [0x20] + Array("{}".utf8)
    #expect(throws: RemoteMessageError.malformed("no signature in front")) { try open(notHex) }
    let body = Array("not json".utf8)
    let garbage = Array(RemoteFrame.hex(Self.sign32(body)).utf8) + [0x20] + body
    #expect(throws: RemoteMessageError.malformed("the body is not a message")) { try open(garbage) }
    let frame = RemoteFrame.seal(message(), sign: Self.sign32)
    #expect(throws: RemoteMessageError.wrongTopic(topic: RemoteTopic.events("hall"), reader: "kitchen")) {
      try open(frame, from: "hall")
    }
  }

  @Test("the MAC is checked before the body is read, and an oversized frame is not read at all")
  func signatureBeforeDecodingAndSizeFirst() throws {
    // Not JSON, with a wrong MAC: refused for the MAC, so nothing unsigned is decoded.
    let unsigned = Array(String(repeating: "0", count: 64).utf8) + [0x20] + Array("not json".utf8)
    #expect(throws: RemoteMessageError.badSignature(reader: "kitchen")) { try open(unsigned) }
    let big = [UInt8](repeating: 0x30, count: RemoteFrame.maximumSize + 1)
    #expect(throws: RemoteMessageError.oversized(bytes: RemoteFrame.maximumSize + 1)) { try open(big) }
    let reader = String(repeating: "x", count: 10_000)
    #expect(RemoteMessageError.badSignature(reader: reader).description.utf8.count < 200)
  }

  @Test("what was taken, saved and read back by a new run, still refuses the same scan")
  func takenOnceAcrossRuns() throws {
    var first = RemoteSequence()
    try first.admit(message(boot: "aa", seq: 7, at: 1_000_000), now: 1_000_100)
    let saved = try DocumentCodec.encode(first)
    var next = try DocumentCodec.decode(RemoteSequence.self, from: saved)
    #expect(throws: RemoteMessageError.replayed(reader: "kitchen", seq: 7)) {
      try next.admit(message(boot: "aa", seq: 7, at: 1_000_000), now: 1_005_000)
    }
    try next.admit(message(boot: "aa", seq: 8, at: 1_004_000), now: 1_005_000)
    // Nothing known of before: nothing signed before the start is taken.
    var blind = RemoteSequence(takingOnlyAfter: 1_005_000)
    #expect(throws: RemoteMessageError.replayed(reader: "kitchen", seq: 7)) {
      try blind.admit(message(boot: "aa", seq: 7, at: 1_000_000), now: 1_005_000)
    }
    try blind.admit(message(boot: "bb", seq: 1, at: 1_005_001), now: 1_005_100)
  }

  @Test("a copy of the last message taken here is a redelivery; one taken by an earlier run is a replay")
  func redeliveryAndReplayAreToldApart() throws {
    var here = RemoteSequence()
    try here.admit(message(boot: "aa", seq: 3, at: 1_000_000), now: 1_000_100)
    #expect(throws: RemoteMessageError.redelivered(reader: "kitchen", seq: 3)) {
      try here.admit(message(boot: "aa", seq: 3, at: 1_000_000), now: 1_000_200)
    }
    #expect(throws: RemoteMessageError.replayed(reader: "kitchen", seq: 2)) {
      try here.admit(message(boot: "aa", seq: 2, at: 1_000_000), now: 1_000_200)
    }
    var restarted = try DocumentCodec.decode(RemoteSequence.self, from: try DocumentCodec.encode(here))
    #expect(throws: RemoteMessageError.replayed(reader: "kitchen", seq: 3)) {
      try restarted.admit(message(boot: "aa", seq: 3, at: 1_000_000), now: 1_000_200)
    }
  }

  @Test func newerMessagesAreTakenAndOldOnesRefused() throws {
    var sequence = RemoteSequence()
    try sequence.admit(message(boot: "aa", seq: 1, at: 1_000_000), now: 1_000_100)
    try sequence.admit(message(boot: "aa", seq: 2, at: 1_000_050), now: 1_000_100)
    // A copy of the last one taken here is refused as a redelivery (issue 22's rough edges).
    #expect(throws: RemoteMessageError.redelivered(reader: "kitchen", seq: 2)) {
      try sequence.admit(message(boot: "aa", seq: 2, at: 1_000_050), now: 1_000_200)
    }
    #expect(throws: RemoteMessageError.replayed(reader: "kitchen", seq: 1)) {
      try sequence.admit(message(boot: "aa", seq: 1, at: 1_000_000), now: 1_000_200)
    }
    // A new boot (the node restarted) starts its counter again, and is taken when it is later.
    try sequence.admit(message(boot: "bb", seq: 1, at: 1_000_300), now: 1_000_400)
    // An old boot's message, replayed while still inside the window, is not later: refused.
    #expect(throws: RemoteMessageError.replayed(reader: "kitchen", seq: 3)) {
      try sequence.admit(message(boot: "aa", seq: 3, at: 1_000_060), now: 1_000_400)
    }
  }

  @Test func outsideTheWindowIsStaleEitherWay() throws {
    var sequence = RemoteSequence()
    let window = RemoteSequence.window
    #expect(throws: RemoteMessageError.stale(reader: "kitchen", byMilliseconds: window + 1)) {
      try sequence.admit(message(at: 0), now: window + 1)
    }
    #expect(throws: RemoteMessageError.stale(reader: "kitchen", byMilliseconds: -(window + 1))) {
      try sequence.admit(message(at: window + 1), now: 0)
    }
    try sequence.admit(message(at: 0), now: window)
    #expect(
      RemoteMessageError.stale(reader: "kitchen", byMilliseconds: 45_000).description.contains("45.0 s old"))
  }

  @Test(arguments: [
    ("kitchen", true), ("hall-2", true), ("a_b", true), ("", false), ("Kitchen", false), ("a/b", false),
    ("a+", false), ("#", false), (String(repeating: "a", count: 33), false),
    (String(repeating: "a", count: 32), true),
  ])
  func namesAreSafeInTopicsAndFileNames(name: String, valid: Bool) {
    #expect(RemoteTopic.isValidName(name) == valid)
  }
}
