import Testing

@testable import PuckCore

/// Inputs the fuzzer (fuzz/) found answered wrongly; each stays fixed.
@Suite("Fuzzer findings")
struct FuzzFindingsTests {
  @Test("an instant outside years 0000–9999 is not accepted, so nothing unreadable is ever written back")
  func instantRange() {
    #expect(Instant(iso8601: "0000-01-01T00:00:00+01:00") == nil)
    #expect(Instant(iso8601: "9999-12-31T23:59:59-01:00") == nil)
    #expect(Instant(iso8601: "0000-01-01T00:00:00Z")?.description == "0000-01-01T00:00:00Z")
    #expect(Instant(iso8601: "9999-12-31T23:59:59Z")?.description == "9999-12-31T23:59:59Z")
  }

  @Test("a zone file whose footer disagrees with its last transition still resolves local times exactly")
  func footerDisagrees() throws {
    // fuzz/findings/1-tzif-footer-disagrees: one transition at 2000000000 to BBB (+01:00), and
    // a footer (AAA0) that says +00:00 after it.
    let zone = try Self.zone(
      name: "Fuzz/Footer",
      "545a69663200000000000000000000000000000000000000000000000000000000000000000000010000000400000000000055544300",
      "545a69663200000000000000000000000000000000000000000000000000000000000001000000020000000800000000773594000100",
      "000000000000000e10000441414100424242000a414141300a")
    let resolved = zone.instant(
      for: LocalDate(year: 2033, month: 5, day: 18), at: WallTime(hour: 4, minute: 56, second: 40))
    #expect(resolved == Instant(iso8601: "2033-05-18T04:56:40Z"))
    #expect(zone.localDateTime(at: resolved).secondsOfDay == 4 * 3600 + 56 * 60 + 40)
  }

  @Test("a POSIX rule whose daylight time ends in the next year does not jump at UTC new year")
  func posixSpill() throws {
    let zone = try ZoneRules(posixTZ: "AAA9BBB,0,M12.5.6/167")
    #expect(zone.offset(at: Instant(unixSeconds: -1)) == zone.offset(at: Instant(unixSeconds: 0)))
    #expect(zone.offset(at: Instant(unixSeconds: 0)) == -9 * 3600, "as glibc says (TZ=… date -d @0 +%z)")
  }

  @Test(
    "a local time skipped by a gap resolves to a later local time, even where the offset changes again inside the gap"
  )
  func gapOverlapsAFold() throws {
    // fuzz/findings/4-tzif-gap-overlaps-a-fold: transitions at 0 (+05:21:10 → +17:59:27),
    // 128 (→ −18:12:19), 2570 (→ +05:53:28). Local 05:51:10 on 1970-01-01 (21070) exists at no
    // instant. The gap at 0 moved it forward to 1800, but by then the offset had fallen to
    // −18:12:19: local −63739, far earlier than asked.
    let zone = try Self.zone(
      name: "Fuzz/Gap",
      "545a6966310000000000000000000000000200000000000000000000000000000000000600000004000000128000000000000000",
      "000000800000070000000a0a000034a8010203030002000052d8000000004b4600040000fcff0000fffefffd0000005400484d54",
      "004d4d5600495354002b3036330a")
    let resolved = zone.instant(
      for: LocalDate(year: 1970, month: 1, day: 1), at: WallTime(hour: 5, minute: 51, second: 10))
    let local = resolved.unixSeconds + Int64(zone.offset(at: resolved))
    #expect(local > 21070, "resolved to \(resolved.unixSeconds), local \(local)")
  }

  /// A zone from its TZif file, written as lines of hex.
  static func zone(name: String, _ hexLines: String...) throws -> ZoneRules {
    let hex = hexLines.joined()
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
      index = next
    }
    return try ZoneRules(tzif: bytes, name: name)
  }
}
