import Foundation
import Testing

@testable import PuckCore

/// The TZif reader on files made here: by `zic` from a rules source written in the test, and
/// byte by byte for versions and damage `zic` would not produce.
@Suite struct TZifParsingTests {
  typealias F = ZoneFixtures

  /// A zone no compiled-in table could know: UTC+4:15, with a 45-minute DST from the second
  /// Sunday of May at 01:00 to the last Sunday of September at 03:00.
  static let puckLandSource = """
    Rule\tPuck\t2000\tmax\t-\tMay\tSun>=8\t1:00\t0:45\tS
    Rule\tPuck\t2000\tmax\t-\tSep\tlastSun\t3:00\t0\t-
    Zone\tPuck/Land\t4:15\tPuck\tPL%sT

    """

  @Test func rulesComeFromAFileCompiledByZic() throws {
    let directory = try F.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = directory.appendingPathComponent("puckland")
    try Self.puckLandSource.write(to: source, atomically: true, encoding: .utf8)
    _ = try F.run("/usr/sbin/zic", ["-d", directory.path, source.path])
    let path = directory.appendingPathComponent("Puck/Land").path
    let zone = try ZoneRules(tzif: try F.bytes(atPath: path), name: "Puck/Land")

    #expect(zone.rule?.standard.abbreviation == "PLT")
    #expect(try zone.offset(at: F.instant("2030-01-10T12:00:00Z")) == 4 * 3600 + 15 * 60)
    #expect(try zone.abbreviation(at: F.instant("2030-01-10T12:00:00Z")) == "PLT")
    #expect(try zone.offset(at: F.instant("2030-07-10T12:00:00Z")) == 5 * 3600)
    #expect(try zone.abbreviation(at: F.instant("2030-07-10T12:00:00Z")) == "PLST")
    #expect(try zone.isDST(at: F.instant("2030-07-10T12:00:00Z")))
    // 2030-05-12 (second Sunday of May) 01:00 → 01:45: 01:20 is in the gap, read at +4:15.
    let gap = zone.instant(for: LocalDate(year: 2030, month: 5, day: 12), at: WallTime(hour: 1, minute: 20))
    #expect(try gap == F.instant("2030-05-11T21:05:00Z"))
    #expect(zone.localDateTime(at: gap).secondsOfDay == 2 * 3600 + 5 * 60)
    // 2030-09-29 (last Sunday of September) 03:00 → 02:15: 02:30 happens twice; first is +5.
    let fold = zone.instant(for: LocalDate(year: 2030, month: 9, day: 29), at: WallTime(hour: 2, minute: 30))
    #expect(try fold == F.instant("2030-09-28T21:30:00Z"))

    // glibc reads the same file the same way.
    let samples = stride(from: Int64(1_900_000_000), to: 1_990_000_000, by: 86_400 * 5 + 1234).map { $0 }
    let glibc = try F.glibcLocalTimes(tz: ":" + path, at: samples)
    for (t, expected) in zip(samples, glibc) {
      #expect(zone.offset(at: Instant(unixSeconds: t)) == expected.offset)
      #expect(zone.abbreviation(at: Instant(unixSeconds: t)) == expected.abbreviation)
    }
  }

  @Test func readsVersion1Files() throws {
    // Version 1: 32-bit times, no footer; the last type holds forever after.
    let file = TZifFile(
      version: 0, transitions: [(1_000_000_000, 1)],
      types: [(3600, false, "AAA"), (7200, true, "BBB")], footer: "")
    let zone = try ZoneRules(tzif: file.bytes(), name: "Test/V1")
    #expect(zone.offset(at: Instant(unixSeconds: 999_999_999)) == 3600)
    #expect(zone.abbreviation(at: Instant(unixSeconds: 1_000_000_000)) == "BBB")
    #expect(zone.isDST(at: Instant(unixSeconds: 4_000_000_000)))
  }

  @Test(arguments: [UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "4")])
  func readsTheSixtyFourBitBlockAndFooter(version: UInt8) throws {
    // The version 1 block says something else entirely: only the 64-bit block may be used.
    let file = TZifFile(
      version: version, transitions: [(-3_000_000_000, 1), (3_000_000_000, 0)],
      types: [(0, false, "ZZZ"), (-3600, false, "YYY")], footer: "<-02>2<-01>,M3.5.0/-1,M10.5.0/0",
      versionOneBlock: TZifFile.Block(transitions: [], types: [(12345, false, "OLD")]))
    let zone = try ZoneRules(tzif: file.bytes(), name: "Test/V\(version)")
    #expect(zone.offset(at: Instant(unixSeconds: -3_000_000_001)) == 0)
    #expect(zone.abbreviation(at: Instant(unixSeconds: 0)) == "YYY")
    // After the last transition (2065), the footer: −02, with −01 from the last Sunday of March
    // at −01:00 (Saturday 23:00) local. 2070-03-30 is that Sunday.
    #expect(try zone.offset(at: F.instant("2070-03-29T23:59:59-02:00")) == -3600)
    #expect(try zone.offset(at: F.instant("2070-03-29T23:00:00-02:00")) == -3600)
    #expect(try zone.offset(at: F.instant("2070-03-29T22:59:59-02:00")) == -7200)
    #expect(try zone.abbreviation(at: F.instant("2070-07-01T00:00:00Z")) == "-01")
  }

  @Test func rejectsDamagedFiles() throws {
    let good = TZifFile(
      version: UInt8(ascii: "2"), transitions: [(0, 0)], types: [(0, false, "UTC")], footer: "UTC0"
    ).bytes()
    #expect(throws: ZoneRulesError.notTZif(zone: "X")) {
      try ZoneRules(tzif: Array("Europe/Paris".utf8), name: "X")
    }
    #expect(throws: ZoneRulesError.notTZif(zone: "X")) { try ZoneRules(tzif: [], name: "X") }
    for length in [10, 44, 60, good.count - 3] {
      #expect(throws: ZoneRulesError.truncated(zone: "X")) {
        try ZoneRules(tzif: Array(good.prefix(length)), name: "X")
      }
    }
    let outOfOrder = TZifFile(
      version: 0, transitions: [(10, 0), (5, 0)], types: [(0, false, "UTC")], footer: "")
    #expect(throws: ZoneRulesError.malformed(zone: "X", reason: "its transitions are out of order")) {
      try ZoneRules(tzif: outOfOrder.bytes(), name: "X")
    }
    let badIndex = TZifFile(version: 0, transitions: [(10, 3)], types: [(0, false, "UTC")], footer: "")
    #expect(throws: ZoneRulesError.self) { try ZoneRules(tzif: badIndex.bytes(), name: "X") }
    let badFooter = TZifFile(
      version: UInt8(ascii: "2"), transitions: [], types: [(0, false, "UTC")], footer: "U0")
    let parsed = Result { () throws(ZoneRulesError) in try ZoneRules(tzif: badFooter.bytes(), name: "Y") }
    guard case .failure(let error) = parsed else {
      Issue.record("the bad footer was accepted")
      return
    }
    #expect(error.description.contains("zone file for 'Y' is damaged"))
  }

  @Test func readsEveryInstalledZone() throws {
    // Every file under /usr/share/zoneinfo that starts with TZif must parse.
    let root = URL(fileURLWithPath: F.zoneinfo)
    let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
    var count = 0
    while let relative = enumerator.nextObject() as? String {
      let bytes = (try? F.bytes(atPath: root.appendingPathComponent(relative).path)) ?? []
      guard bytes.starts(with: Array("TZif".utf8)) else { continue }
      do {
        _ = try ZoneRules(tzif: bytes, name: relative)
        count += 1
      } catch {
        Issue.record("\(relative): \(error)")
      }
    }
    #expect(count > 300)
  }
}

/// A TZif file written byte by byte (RFC 8536 §3), one type per abbreviation.
struct TZifFile {
  /// One data block's transitions (time, type index) and types (offset, isDST, abbreviation).
  struct Block {
    var transitions: [(Int64, UInt8)]
    var types: [(Int32, Bool, String)]
  }

  var version: UInt8
  var block: Block
  var footer: String
  var versionOneBlock: Block?

  init(
    version: UInt8, transitions: [(Int64, UInt8)], types: [(Int32, Bool, String)], footer: String,
    versionOneBlock: Block? = nil
  ) {
    self.version = version
    self.block = Block(transitions: transitions, types: types)
    self.footer = footer
    self.versionOneBlock = versionOneBlock
  }

  func bytes() -> [UInt8] {
    if version == 0 { return encode(block, timeSize: 4) }
    return encode(versionOneBlock ?? block, timeSize: 4) + encode(block, timeSize: 8)
      + Array("\n\(footer)\n".utf8)
  }

  private func encode(_ block: Block, timeSize: Int) -> [UInt8] {
    var characters: [UInt8] = []
    var indices: [UInt8] = []
    for type in block.types {
      indices.append(UInt8(characters.count))
      characters += Array(type.2.utf8) + [0]
    }
    var out = Array("TZif".utf8) + [version] + [UInt8](repeating: 0, count: 15)
    for count in [0, 0, 0, block.transitions.count, block.types.count, characters.count] {
      out += bigEndian(UInt64(count), size: 4)
    }
    for transition in block.transitions {
      out += bigEndian(UInt64(bitPattern: transition.0), size: timeSize)
    }
    out += block.transitions.map(\.1)
    for (index, type) in block.types.enumerated() {
      out += bigEndian(UInt64(UInt32(bitPattern: type.0)), size: 4) + [type.1 ? 1 : 0, indices[index]]
    }
    return out + characters
  }

  private func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
    (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
  }
}
