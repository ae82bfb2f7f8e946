import Foundation
import Testing

/// `puckctl calendar` run as a process, reading what it prints.
@Suite("puckctl calendar")
struct CalendarCommandTests {
  @Test("--json prints exactly an array of local/utc objects, across the spring-forward night")
  func jsonAcrossSpringForward() throws {
    let result = try run(
      "puckctl",
      [
        "calendar", "06:30", "--tz", "Europe/Bucharest", "--after", "2026-03-28T12:00:00+02:00", "--count",
        "3", "--json",
      ])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    let objects = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: String]]
    #expect(
      objects == [
        ["local": "2026-03-29T06:30:00+03:00", "utc": "2026-03-29T03:30:00Z"],
        ["local": "2026-03-30T06:30:00+03:00", "utc": "2026-03-30T03:30:00Z"],
        ["local": "2026-03-31T06:30:00+03:00", "utc": "2026-03-31T03:30:00Z"],
      ])
    #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("["))
    #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("]"))
  }

  @Test("a time inside the gap fires after it, with the offset from before the gap")
  func gapTime() throws {
    // Bucharest springs forward 03:00 → 04:00 on 2026-03-29: 03:30 does not exist.
    let result = try run(
      "puckctl",
      [
        "calendar", "03:30", "--tz", "Europe/Bucharest", "--date", "2026-03-29", "--after", "2026-03-28",
        "--json",
      ])
    #expect(result.status == 0)
    let objects = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: String]]
    #expect(objects == [["local": "2026-03-29T04:30:00+03:00", "utc": "2026-03-29T01:30:00Z"]])

    let human = try run(
      "puckctl",
      ["calendar", "03:30", "--tz", "Europe/Bucharest", "--date", "2026-03-29", "--after", "2026-03-28"])
    #expect(human.stdout.contains("Sun 2026-03-29 04:30:00 EEST (+03:00)"))
    #expect(human.stdout.contains("daylight saving gap"))
  }

  @Test("the human form gives weekday, local time with zone, and UTC, one fire per line")
  func humanForm() throws {
    let result = try run(
      "puckctl",
      [
        "calendar", "07:15", "--days", "mon,fri", "--tz", "America/New_York", "--after", "2026-11-01T00:00",
        "--count", "3",
      ])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(
      lines == [
        "Mon 2026-11-02 07:15:00 EST (-05:00)  =  2026-11-02 12:15:00 UTC",
        "Fri 2026-11-06 07:15:00 EST (-05:00)  =  2026-11-06 12:15:00 UTC",
        "Mon 2026-11-09 07:15:00 EST (-05:00)  =  2026-11-09 12:15:00 UTC",
      ])
  }

  @Test("the default zone is the system zone from $TZ")
  func systemZoneFromTZ() throws {
    let result = try run(
      "puckctl", ["calendar", "06:30", "--after", "2026-07-01T00:00:00Z", "--json"],
      environment: ["TZ": "Australia/Lord_Howe"])
    let objects = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: String]]
    #expect(objects == [["local": "2026-07-02T06:30:00+10:30", "utc": "2026-07-01T20:00:00Z"]])
  }

  @Test(
    "bad input gets one line on stderr and the usage exit code",
    arguments: [
      (["calendar", "06:30", "--tz", "Mars/Olympus_Mons"], "unknown time zone"),
      (["calendar", "06:30", "--tz", "../../etc/passwd"], "unknown time zone"),
      (["calendar", "25:30"], "is not a time"),
      (["calendar", "06:30", "--days", "mon,funday"], "is not a day"),
      (["calendar", "06:30", "--date", "2026-02-30"], "is not a date"),
      (["calendar", "06:30", "--days", "mon", "--date", "2026-03-01"], "not both"),
      (["calendar", "06:30", "--count", "0"], "--count"),
      (["calendar", "06:30", "--after", "soon"], "is not an instant"),
      (["calendar", "06:30", "--bogus"], "unknown option"),
      (["calendar"], "missing"),
      (["frobnicate"], "unknown command"),
    ])
  func errors(arguments: [String], message: String) throws {
    let result = try run("puckctl", arguments)
    #expect(result.status == 64)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains(message))
    #expect(result.stderr.split(separator: "\n").count == 1)
  }

  @Test("a one-shot date already past prints nothing in JSON and exits 0")
  func pastDate() throws {
    let result = try run(
      "puckctl",
      ["calendar", "06:30", "--date", "2020-01-01", "--tz", "UTC", "--after", "2026-01-01", "--json"])
    #expect(result.status == 0)
    #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
  }
}
