import Foundation
import Glibc
import PuckCore
import PuckDaemon
import PuckStorage
import Testing

/// `puckctl acknowledge` (docs/DESIGN.md D3, D4): it says ok only once what it cleared is saved.
@Suite("acknowledge", .serialized)
struct AcknowledgeTests {
  @Test("guards.json cannot be written: acknowledge fails and the missed alarm stays shown, until it can")
  func failsWhileTheGuardsFileCannotBeSaved() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    // guards.json cannot be read (a directory stands in its place), so it is never written over;
    // its last good copy, with one missed alarm, stands in for it.
    let missed = AlarmOccurrence(
      alarm: Alarm(id: 1, time: WallTime(hour: 5, minute: 0), recurrence: .weekly(Set(Weekday.allCases))),
      scheduledAt: Instant(unixSeconds: try ManualDock.unixSeconds("2026-03-02T05:00:00Z")))
    try StateDirectory(path: dock.stateDirectory).save(
      EnforcementRecord(unacknowledgedMissed: [missed]), name: "guards.json")
    let path = dock.stateDirectory + "/guards.json"
    try #require(rename(path, path + ".prev") == 0 && mkdir(path, 0o700) == 0)
    try dock.start()
    try #require(try dock.status().missed.count == 1)

    let refused = try dock.request("acknowledge")
    #expect(refused.ok == false, "not saved, so not acknowledged")
    #expect(refused.failure?.kind == .failed)
    #expect(
      refused.failure?.message.contains("guards.json") == true, "\(String(describing: refused.failure))")
    #expect(try dock.status().missed.count == 1, "still shown, as it is still on disk")

    // The file can be written again (it is read again before the request).
    try #require(rmdir(path) == 0)
    #expect(try dock.request("acknowledge").ok == true)
    #expect(try dock.status().missed.isEmpty)
    let saved = try StateDirectory(path: dock.stateDirectory).load("guards.json", as: EnforcementRecord.self)
    #expect(saved.value?.unacknowledgedMissedCount == 0)
  }
}
