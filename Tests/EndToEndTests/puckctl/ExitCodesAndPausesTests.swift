import Foundation
import Glibc
import PuckCore
import Testing

/// Issue 24's rough edges, as a script or a person meets them: "nothing to do" has its own exit
/// code, the alarm list tells the dock's pause from an alarm's own, a refused dock pause speaks
/// of the dock, and a raw request with a bad field is told which field and why.
@Suite("puckctl exit codes, pauses and bad fields", .serialized)
struct ExitCodesAndPausesTests {
  @Test("stop with nothing ringing and override with no wake-up open exit 3, not 0")
  func nothingToDo() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.writePairing("04:A2:3B:11:22:33:44")
    try dock.start()
    let stop = try dock.ctl("stop")
    #expect(stop.status == 3, "\(stop.stderr)")
    #expect(stop.stdout.contains("nothing is ringing"))
    let override = try dock.ctl("override", "--yes")
    #expect(override.status == 3, "\(override.stderr)")
    #expect(override.stdout.contains("no wake-up is open"))
    let cancel = try dock.ctl("override", "--cancel")
    #expect(cancel.status == 3, "\(cancel.stderr)")
    #expect(try dock.ctl("--help").stdout.contains("3 nothing to do"))
  }

  @Test("the alarm list tells the dock's pause from an alarm's own, and says which resume ends each")
  func pausesApart() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    #expect(try dock.ctl("alarm", "add", "06:30", "--days", "weekdays").status == 0)
    #expect(try dock.ctl("alarm", "add", "07:30", "--days", "weekends").status == 0)
    let day = 86_400.0
    let format = Date.ISO8601FormatStyle().year().month().day()
    let own = Date(timeIntervalSinceNow: 30 * day).formatted(format)
    let dockPause = Date(timeIntervalSinceNow: 10 * day).formatted(format)
    #expect(try dock.ctl("alarm", "pause", "1", "--until", own).status == 0)
    #expect(try dock.ctl("pause", "--until", dockPause).status == 0)
    let list = try dock.ctl("alarm", "list").stdout
    #expect(list.contains("1  06:30  weekdays  (paused until \(own))"), "\(list)")
    #expect(list.contains("2  07:30  weekends  (dock paused until \(dockPause))"), "\(list)")
    #expect(list.contains("'puckctl alarm resume ID' ends that alarm's own pause"), "\(list)")
    #expect(list.contains("'puckctl resume' ends it"), "\(list)")

    let tooFar = try dock.ctl("pause", "--until", "2099-01-05")
    #expect(tooFar.status == 64)
    #expect(tooFar.stderr.contains("at most 366 days ahead"), "\(tooFar.stderr)")
    #expect(!tooFar.stderr.contains("to stop an alarm"), "the whole dock's pause is not one alarm's")
  }

  @Test("a raw request with a bad time is told which field is wrong and why")
  func badFieldNamed() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    let reply = try #require(
      try rawRequest(#"{"v":1,"command":"alarm.add","time":"25:99"}"#, socket: dock.socketPath))
    #expect(reply.failure?.kind == .badRequest)
    #expect(
      reply.failure?.message == "alarm.add: time: '25:99' is not a time: use HH:MM or HH:MM:SS (24-hour)")
  }
}

/// One raw request line over the socket; nil when the daemon went away before answering.
private func rawRequest(_ line: String, socket path: String) throws -> ControlReply? {
  let fd = unixSocket(SOCK_STREAM, path: path)
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  let bytes = Array((line + "\n").utf8)
  guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count
  else { return nil }
  var received: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 4096)
  while true {
    if let newline = received.firstIndex(of: 10) { return try ControlWire.decodeReply(received[..<newline]) }
    let count = read(fd, &chunk, chunk.count)
    guard count > 0 else { return nil }
    received += chunk[0..<count]
  }
}
