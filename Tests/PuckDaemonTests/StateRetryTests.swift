import Foundation
import PuckCore
import PuckDaemon
import Testing

/// `StateRetry` on the manual clock: a state file that cannot be read is held (never written
/// over) and read again every 30 s, so a card that comes back is taken without a restart and
/// without anyone asking (docs/DESIGN.md D4).
@Suite("state retry", .serialized)
struct StateRetryTests {
  private func at(_ iso: String) throws -> Instant { Instant(unixSeconds: try ManualDock.unixSeconds(iso)) }

  @Test(
    "alarms.json unreadable at start: not protected; once it reads again, the 30 s retry takes it and the alarm rings on time"
  )
  func heldAlarmsAreTakenByTheTimer() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    dock.stop()

    // The file goes unreadable (a directory in its place: EISDIR) while the daemon is down.
    let path = dock.stateDirectory + "/alarms.json"
    let saved = try Data(contentsOf: URL(fileURLWithPath: path))
    try FileManager.default.removeItem(atPath: path)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    try dock.start()
    let held = try dock.status()
    #expect(!held.protected)
    let unreadable = held.reasonCodes?.contains {
      if case .stateFilesUnreadable(let files) = $0 { return files.map(\.file) == ["alarms.json"] }
      return false
    }
    #expect(unreadable == true, "status names the held file")
    #expect(try dock.request("alarm", "list").alarms?.isEmpty == true, "nothing is made up in its place")

    // It reads again; no request comes, only time passes.
    try FileManager.default.removeItem(atPath: path)
    try saved.write(to: URL(fileURLWithPath: path))
    try dock.advance(to: "2026-03-02T06:35:00Z")
    let guards = try dock.guards()
    #expect(guards.count == 1)
    #expect(
      try guards.first?.openedAt == at("2026-03-02T06:30:00Z"),
      "the retry took the file before the alarm was due, so it rang at its time, not when status asked")
    #expect(try dock.status().reasonCodes?.contains { $0.code == "state-files-unreadable" } == false)
  }

}
