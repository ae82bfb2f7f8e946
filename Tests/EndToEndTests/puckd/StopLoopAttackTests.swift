import Foundation
import Glibc
import PuckCore
import Testing

/// Issue 33 item 2, as a sleeper who wants to stay in bed tries it: a loop of `puckctl stop`
/// from a `puckalarm` member (prepared at bedtime, or over SSH from the phone), and the web
/// app's own user asking puckd directly for what the web app leaves out (docs/DESIGN.md W18,
/// C2). Real puckd, real socket, real ALSA into a PulseAudio null sink, peers through `setpriv`.
@Suite("a loop of stops, and the web app's user at the socket", .serialized)
struct StopLoopAttackTests {
  static let puck = "04:A2:3B:11:22:33:44"

  @Test("a member's loop of puckctl stop every 0.2 s: the dock is heard in at least half of 60 s of samples")
  func memberStopLoop() throws {
    let group = try puckalarmGroup()
    // The defaults: retry_delay 60 s, stop_after 20 s.
    let dock = try DaemonHarness()
    let sink = try #require(dock.audio)
    try dock.writePairing(Self.puck)
    try dock.start()
    _ = try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }

    let loop = Process()
    loop.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
    loop.arguments = [
      "--reuid=65534", "--regid=65534", "--groups=\(group)", "/bin/sh", "-c",
      "while sleep 0.2; do '\(Binaries.url("puckctl").path)' --socket '\(dock.socketPath)' stop; done",
    ]
    loop.standardOutput = FileHandle.nullDevice
    loop.standardError = FileHandle.nullDevice
    try loop.spawn()
    defer {
      kill(loop.processIdentifier, SIGKILL)
      loop.waitUntilExit()
    }

    let samples = try sink.record(seconds: 60)
    // Half-second windows: the built-in tone's longest silence is 470 ms (AlarmTone), so every
    // window of a ring holds a beep, and a window without one is time the dock was quiet.
    let window = 24_000
    let windows = stride(from: 0, to: samples.count - window + 1, by: window).map { start in
      samples[start..<(start + window)].lazy.map { abs(Int($0)) }.max() ?? 0
    }
    let heard = windows.filter { $0 > 1000 }.count
    let share = Double(heard) / Double(max(windows.count, 1))
    print(
      "stop loop: the dock was heard in \(heard) of \(windows.count) half-second windows (\(Int(share * 100)) %)"
    )
    #expect(windows.count >= 110, "60 s were recorded (\(windows.count) windows)")
    #expect(share >= 0.5, "the dock rings at least half the time whatever the loop (\(share))")

    // The refusals are in the log at most once a minute, with a count of what was held back.
    let refusals = dock.log.split(separator: "\n").filter { $0.contains("stop refused") }
    #expect(!refusals.isEmpty && refusals.count <= 3, "rate-limited: \(refusals.count) lines")
    #expect(try dock.guards().count == 1, "the wake-up is still open")
    #expect(try dock.ctl("scan", Self.puck).stdout.contains("wake-up complete"))
  }

  @Test(
    "puck-web's user, in the puckalarm group, asking puckd itself on the socket: never a stop, a scan, an answer, a rehearsal, pairing or readers"
  )
  func webUserAtTheSocket() throws {
    let group = try puckalarmGroup()
    let web = try puckWebUser()
    let dock = try DaemonHarness(
      config: "[audio]\ndevice = null\n[enforcement]\nstop_after = 5s\n", audio: false)
    try dock.writePairing(Self.puck)
    try dock.start()
    _ = try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    // Past stop_after: a member's stop would count now.
    usleep(6_000_000)

    /// One request written by hand on the socket as the web app's user (not through puck-web,
    /// whose own list is the second lock), and puckd's reply line.
    func asTheWebApp(_ request: ControlRequest) throws -> ControlReply {
      let line = String(decoding: ControlWire.encode(request), as: UTF8.self)
      let script = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(sys.argv[1])
        s.sendall(sys.argv[2].encode() + b"\\n")
        data = b""
        while not any(line and "ok" in json.loads(line) for line in data.split(b"\\n")[:-1]):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        sys.stdout.write(data.decode())
        """
      let result = try runExternal(
        "/usr/bin/setpriv",
        [
          "--reuid=\(web)", "--regid=\(group)", "--groups=\(group)", "/usr/bin/python3", "-c", script,
          dock.socketPath, line,
        ])
      let final = result.stdout.split(separator: "\n").compactMap {
        try? ControlWire.decodeReply(Array($0.utf8))
      }
      .last { $0.ok != nil }
      return try #require(final, "a reply to \(request.name.rawValue): \(result.stdout) \(result.stderr)")
    }

    let uid = try TagUID(parsing: Self.puck)
    let forbidden: [ControlRequest] = [
      ControlRequest(.stop), ControlRequest(.awake), ControlRequest(.acknowledge),
      ControlRequest(.scan, [.uid: .uid(uid)]),
      ControlRequest(.test, [.seconds: .integer(1), .scanSeconds: .integer(0)]),
      ControlRequest(.pair, [.seconds: .integer(1)]), ControlRequest(.unpair, [.yes: .flag(true)]),
      ControlRequest(.override, [.yes: .flag(true)]), ControlRequest(.readerAdd, [.reader: .text("kitchen")]),
      ControlRequest(.readerRemove, [.reader: .text("kitchen")]), ControlRequest(.reload),
    ]
    for request in forbidden {
      let reply = try asTheWebApp(request)
      #expect(
        reply.failure?.kind == .permissionDenied, "\(request.name.rawValue) refused to puck-web: \(reply)")
    }
    #expect(dock.log.contains("needs a person at the dock"), "the refusal says why")
    let guards = try dock.guards()
    #expect(guards.count == 1 && guards.first?["ringing"] as? Bool == true, "still ringing: \(guards)")
    #expect(guards.first?["bypassCount"] as? Int == 0, "no stop was taken")

    // What the web app is for is served.
    #expect(try asTheWebApp(ControlRequest(.alarmList)).ok == true)
    let add = try asTheWebApp(
      ControlRequest(adding: AlarmDraft(time: WallTime(hour: 7, minute: 0), recurrence: .weekly([.saturday])))
    )
    #expect(add.ok == true, "\(add)")
    #expect(try dock.ctl("scan", Self.puck).stdout.contains("wake-up complete"))
  }
}
