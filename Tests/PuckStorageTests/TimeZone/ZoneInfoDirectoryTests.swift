import Foundation
import PuckCore
import Testing

@testable import PuckStorage

/// Compiles a zone source with the system's `zic` into `directory`.
private func compileZone(_ source: String, into directory: String) throws {
  let sourcePath = directory + "/zone.src"
  try source.write(toFile: sourcePath, atomically: true, encoding: .utf8)
  let zic = Process()
  zic.executableURL = URL(fileURLWithPath: "/usr/sbin/zic")
  zic.arguments = ["-d", directory, sourcePath]
  try zic.run()
  zic.waitUntilExit()
  #expect(zic.terminationStatus == 0)
}

private func temporaryDirectory() throws -> String {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent(
    "tzdir-\(UUID().uuidString.prefix(8))"
  ).path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}

@Suite("System time-zone database")
struct ZoneInfoDirectoryTests {
  private let july = Instant(unixSeconds: 1_782_864_000)  // 2026-07-01T00:00:00Z

  @Test("zones come from $TZDIR at run time: a changed zone file takes effect without a rebuild")
  func tzdirIsReadEachTime() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try compileZone("Zone Test/Dock 0 - DOCK 2030\n 4:15 - DOCK\n", into: dir)
    let zones = ZoneInfoDirectory(environment: ["TZDIR": dir])
    #expect(try zones.zone(named: "Test/Dock").offset(at: july) == 0)

    // tzdata is updated: the same zone now has another rule from 2026 on.
    try compileZone("Zone Test/Dock 0 - DOCK 2026\n 4:15 - DOCK\n", into: dir)
    #expect(try zones.zone(named: "Test/Dock").offset(at: july) == 4 * 3600 + 900)
    #expect(try zones.zone(named: "Test/Dock").abbreviation(at: july) == "DOCK")
  }

  @Test("a zone the database does not have, or a name that escapes it, is an unknown zone")
  func unknownZones() {
    let zones = ZoneInfoDirectory(environment: [:])
    for name in ["Mars/Olympus_Mons", "../etc/passwd", "/etc/passwd", "Europe/../../etc/passwd", ""] {
      #expect(throws: ZoneLookupError.unknownZone(name)) { try zones.zone(named: name) }
    }
  }

  @Test("$TZ as a name, :name, an absolute path or a POSIX rule; empty means UTC")
  func tzVariable() throws {
    func offset(_ tz: String) throws -> Int {
      try ZoneInfoDirectory(environment: ["TZ": tz]).systemZone().offset(at: july)
    }
    #expect(try offset("Europe/Bucharest") == 3 * 3600)
    #expect(try offset(":Europe/Bucharest") == 3 * 3600)
    #expect(try offset("/usr/share/zoneinfo/America/New_York") == -4 * 3600)
    #expect(try offset("EST5EDT,M3.2.0,M11.1.0") == -4 * 3600)
    #expect(try offset("") == 0)
    #expect(throws: ZoneLookupError.self) { try offset("Not/AZone") }
  }

  @Test("without $TZ the system zone is /etc/localtime, named from its link into zoneinfo")
  func localtime() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let link = dir + "/localtime"
    try FileManager.default.createSymbolicLink(
      atPath: link, withDestinationPath: "/usr/share/zoneinfo/Australia/Lord_Howe")
    let zones = ZoneInfoDirectory(root: "/usr/share/zoneinfo", localtimePath: link, tzVariable: nil)
    #expect(zones.systemZoneName() == "Australia/Lord_Howe")
    #expect(try zones.systemZone().offset(at: july) == 10 * 3600 + 1800)
    let missing = ZoneInfoDirectory(
      root: "/usr/share/zoneinfo", localtimePath: dir + "/nothing", tzVariable: nil)
    #expect(try missing.systemZone().offset(at: july) == 0, "no /etc/localtime means UTC, as in glibc")
  }
}
