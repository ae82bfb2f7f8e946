import Foundation
import Testing

/// The edit and pause commands as a person types them, against the real daemon.
@Suite("puckctl alarm edit, pause and resume", .serialized)
struct EditAndPauseCommandTests {
  @Test("edit, pause and resume an alarm, and pause the dock, from the command line")
  func commandLine() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    #expect(try dock.ctl("alarm", "add", "06:30", "--days", "weekdays").status == 0)
    let edited = try dock.ctl("alarm", "edit", "1", "--time", "07:15", "--label", "gym", "--no-puck")
    #expect(edited.status == 0, "\(edited.stderr)")
    var list = try dock.ctl("alarm", "list")
    #expect(list.stdout.contains("1  07:15  weekdays  \"gym\"  (no puck)"), "\(list.stdout)")

    #expect(try dock.ctl("alarm", "edit", "1").status == 64, "nothing to change is a usage error")
    #expect(try dock.ctl("alarm", "pause", "1").status == 64, "--until is needed")
    // A month ahead (a pause ends at most a year ahead).
    let until = Date(timeIntervalSinceNow: 30 * 86_400).ISO8601Format(.iso8601.year().month().day())
    let paused = try dock.ctl("alarm", "pause", "1", "--until", until)
    #expect(paused.status == 0, "\(paused.stderr)")
    list = try dock.ctl("alarm", "list")
    #expect(list.stdout.contains("(paused until \(until))"), "\(list.stdout)")
    let tooFar = try dock.ctl("alarm", "pause", "1", "--until", "2099-01-05")
    #expect(tooFar.status == 64 && tooFar.stderr.contains("at most 366 days ahead"), "\(tooFar.stderr)")
    #expect(try dock.ctl("alarm", "resume", "1").status == 0)
    #expect(try !dock.ctl("alarm", "list").stdout.contains("paused"))

    let dockPause = try dock.ctl("pause", "--until", "tomorrow")
    #expect(dockPause.status == 0, "\(dockPause.stderr)")
    #expect(try dock.ctl("status").stdout.contains("Paused:   the whole dock, until"))
    #expect(try dock.ctl("resume").status == 0)
    #expect(try !dock.ctl("status").stdout.contains("Paused:"))
    let stranger = try dock.ctl("pause", "--until", "tomorrow", as: "nobody")
    #expect(stranger.status != 0, "pausing needs root or the group")
  }
}
