import Foundation
import PuckCore
import PuckDaemon
import PuckDevices
import Testing

/// The dock's remote readers on the manual clock (docs/DESIGN.md M1, M4, M5): enrolment is a
/// root-only key file, an enrolled reader polls while a wake-up is open and its scan ends it,
/// and one that is not working makes the dock not protected, by name.
@Suite("remote readers in the daemon", .serialized)
struct RemoteReadersTests {
  @Test(
    "reader add makes a root-only key and starts the reader; its scan ends the wake-up; rm is refused while open"
  )
  func enrolPollAndWake() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z", config: "[reader]\ndevice = none\n")
    try dock.start()
    var status = try dock.status()
    #expect(
      status.devices.contains { $0.name == "reader" && $0.detail.contains("no remote reader is enrolled") })
    #expect(!status.protected)

    let added = try dock.request("reader", "add", "kitchen")
    #expect(added.ok == true)
    let key = try #require(added.message?.firstMatch(of: #/[0-9a-f]{64}/#).map { String($0.output) })
    let path = dock.stateDirectory + "/reader-kitchen.key"
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix(key))
    let kitchen = try #require(dock.bench.remote("kitchen"))
    #expect(dock.bench.readersMade == 0, "no local reader with device = none")
    try dock.settle()
    status = try dock.status()
    #expect(status.devices.filter { $0.name == "reader" }.count == 1)
    #expect(try dock.request("reader", "add", "kitchen").failure?.kind == .refused, "enrolled once")

    #expect(!kitchen.isPolling, "nothing is open or due within the hour")
    try dock.addAlarm(6, 1, days: Set(Weekday.allCases))
    #expect(kitchen.isPolling, "in the hour before the alarm it looks for the puck (docs/DESIGN.md S12)")
    try dock.advance(.seconds(60))
    #expect(try dock.guards().first?.ringing == true)
    #expect(kitchen.isPolling, "the field is on while the wake-up is open")
    #expect(try dock.request("reader", "rm", "kitchen").failure?.kind == .refused)
    kitchen.present(dock.puck)
    try dock.settle()
    #expect(try dock.guards().isEmpty, "the kitchen's scan ended it")
    #expect(!kitchen.isPolling)

    #expect(try dock.request("reader", "rm", "kitchen").ok == true)
    #expect(!FileManager.default.fileExists(atPath: path))
    #expect(kitchen.isStopped)
    #expect(try dock.request("reader", "rm", "kitchen").failure?.kind == .notFound)
  }

  @Test("a remote reader that is not working: not protected, by name, and it still is after a restart")
  func unreachableReaderIsNamed() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z", config: "[reader]\ndevice = none\n")
    try dock.start()
    #expect(try dock.request("reader", "add", "kitchen").ok == true)
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    try dock.settle()
    #expect(try dock.status().protected)
    let kitchen = try #require(dock.bench.remote("kitchen"))
    kitchen.report(DeviceCondition(.fault, "kitchen: the reader node is offline (its last will)"))
    try dock.settle()
    let status = try dock.status()
    #expect(!status.protected)
    #expect(status.reasons.contains { $0.contains("kitchen: the reader node is offline") })
    // The enrolment is the key file: a restarted daemon starts the reader again.
    dock.stop()
    try dock.start()
    #expect(dock.bench.remote("kitchen") !== kitchen, "a new reader for the same enrolment")
  }

  @Test("status and reader list show a remote reader's detail as it is now; a fault comes with its event")
  func healthBetweenEvents() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z", config: "[reader]\ndevice = none\n")
    try dock.start()
    #expect(try dock.request("reader", "add", "kitchen").ok == true)
    let kitchen = try #require(dock.bench.remote("kitchen"))
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    try dock.settle()
    func readerDetail() throws -> String? {
      try dock.status().devices.first { $0.name == "reader" }?.detail
    }

    kitchen.drift(DeviceCondition(.ok, "kitchen: online (heard 7 s ago)"))
    #expect(try readerDetail() == "kitchen: online (heard 7 s ago)", "the detail moves on without an event")
    #expect(try dock.request("reader", "list").message == "ok: kitchen: online (heard 7 s ago)")

    kitchen.drift(DeviceCondition(.ok, "kitchen: online (heard 9 s ago)"))
    #expect(try dock.request("reader", "list").message == "ok: kitchen: online (heard 9 s ago)")
    #expect(try dock.status().protected)

    kitchen.report(DeviceCondition(.fault, "kitchen: silent"))
    try dock.settle()
    #expect(try readerDetail() == "kitchen: silent")
    #expect(try !dock.status().protected)
  }
}
