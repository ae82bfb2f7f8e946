import Foundation
import GPIODoubles
import Glibc
import PuckCore
import PuckDaemon
import PuckDevices
import PuckStorage
import PuckSystem
import Synchronization
import Testing

/// A `Daemon` running on a thread of the test process, its GPIO lines replaced by doubles (the
/// one seam that cannot run here), everything else real: the loop, the socket, the state files.
private final class GPIODock: @unchecked Sendable {
  // @unchecked: the doubles are Sendable; `stopper` and `exitCode` are written once by the
  // daemon thread before `started`/`finished` are signalled and read after.
  let directory: String
  let buzzer = RecordingOutputLine(clock: ManualLineClock())
  let led = RecordingOutputLine(clock: ManualLineClock())
  let button = ScriptedInputLine(blocking: true)
  private var stopper: DaemonStopper?
  private var exitCode: Int32?
  private let started = DispatchSemaphore(value: 0)
  private let finished = DispatchSemaphore(value: 0)

  var socket: String { directory + "/puckd.sock" }

  /// `buzzerOn`: how long each beep lasts (a long one holds the line on for a stop to meet).
  init(buzzerOn: String = "100ms") throws {
    directory =
      FileManager.default.temporaryDirectory.appendingPathComponent(
        "gpio-dock-\(UUID().uuidString.prefix(8))"
      ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    // No sound card here, and that is the point: the buzzer must carry the ring alone.
    let config = """
      [audio]
      device = nosuchdevice
      [buzzer]
      line = 18
      on = \(buzzerOn)
      off = 100ms
      [button]
      line = 17
      [led]
      line = 27
      [enforcement]
      override_delay = 0s
      stop_after = 10s
      """
    try config.write(toFile: directory + "/puckd.conf", atomically: true, encoding: .utf8)
    let tag = try TagUID(parsing: "04:A2:3B:11:22:33:44")
    try PairingFile(directory: StateDirectory(path: directory + "/state")).save(
      Pairing(pucks: [PairedTag(uid: tag, pairedAt: Instant(unixSeconds: 1_790_000_000))]))
  }

  func start() throws {
    let options = DaemonOptions(
      configPath: directory + "/puckd.conf", stateDirectory: directory + "/state", socketPath: socket,
      simulate: true)
    let openers = GPIOOpeners(buzzer: buzzer.opener, led: led.opener, button: button.opener)
    let thread = Thread { [self] in
      // Created on this thread: the daemon blocks its signals here, not in the test's threads.
      do {
        let daemon = try Daemon(options: options, environment: ["TZ": "UTC"], gpio: openers)
        stopper = daemon.stopper
        started.signal()
        exitCode = try daemon.run()
      } catch {
        started.signal()
      }
      finished.signal()
    }
    thread.start()
    started.wait()
    try waitFor("the socket answers") { (try? self.request(ControlRequest(.status))) != nil }
  }

  /// Stops the daemon and returns its exit code.
  func stop() -> Int32? {
    stopper?.stop()
    finished.wait()
    return exitCode
  }

  deinit {
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// One request over the real control socket.
  func request(_ command: ControlRequest) throws -> ControlReply {
    let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
      for (index, byte) in socket.utf8.enumerated() { raw[index] = byte }
    }
    let connected = withUnsafePointer(to: &addr) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else { throw CocoaError(.fileNoSuchFile) }
    let line = ControlWire.encode(command) + [10]
    _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = read(fd, &chunk, chunk.count)
      guard count > 0 else { throw CocoaError(.fileReadCorruptFile) }
      received += chunk[0..<count]
      if let newline = received.firstIndex(of: 10) {
        let reply = try ControlWire.decodeReply(received[..<newline])
        if reply.ok != nil { return reply }
        received.removeSubrange(...newline)
      }
    }
  }

  /// Adds a one-shot alarm `seconds` from now (the daemon runs in UTC).
  func addAlarm(inSeconds seconds: Int64) throws -> ControlReply {
    let fire = Instant(unixSeconds: Int64(Date().timeIntervalSince1970) + seconds).utcDateAndTime
    let time = WallTime(
      hour: fire.secondsOfDay / 3600, minute: fire.secondsOfDay / 60 % 60, second: fire.secondsOfDay % 60)
    return try request(ControlRequest(adding: AlarmDraft(time: time, recurrence: .once(fire.date))))
  }

  func guards() throws -> [GuardView] { try request(ControlRequest(.status)).status?.guards ?? [] }

  func device(_ name: String) throws -> DeviceHealth? {
    try request(ControlRequest(.status)).status?.devices.first { $0.name == name }
  }
}

@Suite("puckd drives the buzzer, button and LED", .serialized)
struct DaemonGPIOTests {
  @Test(
    "with no sound card the buzzer carries the ring; a stop silences it; the button is a bypass; the LED blinks"
  )
  func buzzerButtonLED() throws {
    let dock = try GPIODock()
    try dock.start()
    #expect(dock.buzzer.level == false, "the buzzer is driven off at start")
    #expect(try dock.device("buzzer")?.state == .ok)

    // An alarm two seconds ahead (the tag was paired before the start).
    #expect(try dock.addAlarm(inSeconds: 2).ok == true)

    try waitFor("the alarm rings") { try dock.guards().first?.ringing == true }
    try waitFor("the buzzer sounds") { dock.buzzer.drives.contains { $0.on } }
    #expect(try dock.device("audio")?.state == .fault)
    #expect(
      try dock.request(ControlRequest(.status)).status?.reasons.contains { $0.contains("nothing can ring") }
        == false)
    try waitFor("the LED blinks while a wake-up is open") { dock.led.drives.filter(\.on).count >= 2 }

    // A stop silences the buzzer at once, once the ring was heard for stop_after (10 s here):
    // then it buys 5 s of quiet (half the ring heard).
    try waitFor("puckctl stop counts", timeout: 20) {
      let stop = try dock.request(ControlRequest(.stop))
      if stop.ok != true { usleep(100_000) }
      return stop.ok == true
    }
    #expect(dock.buzzer.level == false)
    #expect(try dock.guards().first?.bypassCount == 1)

    // A wrong tag while quiet: a short chirp, and the buzzer ends off.
    let onsBefore = dock.buzzer.drives.filter(\.on).count
    #expect(try dock.request(ControlRequest(commandLine: ["scan", "DE:AD:BE:EF"])).ok == true)
    try waitFor("the wrong-puck chirp") { dock.buzzer.drives.filter(\.on).count > onsBefore }
    try waitFor("the chirp ends") { dock.buzzer.level == false }

    // The dock button is a bypass too (pressed and released, well past the debounce).
    #expect(try dock.request(ControlRequest(.override)).ok == true)
    #expect(try dock.addAlarm(inSeconds: 2).ok == true)
    try waitFor("the second alarm rings") { try dock.guards().first?.ringing == true }
    let pressed = MonotonicInstant.now()
    dock.button.push([GPIOEdge(.rising, at: pressed), GPIOEdge(.falling, at: pressed + .milliseconds(200))])
    try waitFor("the press is a bypass") { try dock.guards().first?.bypassCount == 1 }
    #expect(try dock.guards().first?.ringing == false)
    #expect(dock.buzzer.level == false)

    // A clean stop leaves the buzzer off and its line released.
    #expect(dock.stop() == 0)
    #expect(dock.buzzer.level == false)
    #expect(dock.buzzer.released)
    #expect(dock.led.released)
    #expect(dock.button.released)
  }

  @Test("a clean stop (SIGTERM's path) while the buzzer is driven on drives it off and releases the line")
  func stopWhileTheBuzzerSounds() throws {
    let dock = try GPIODock(buzzerOn: "10s")
    try dock.start()
    #expect(try dock.addAlarm(inSeconds: 2).ok == true)
    // Each beep of the ring holds the line on for 10 s: the stop comes while it is on.
    try waitFor("the alarm rings") { try dock.guards().first?.ringing == true }
    try waitFor("the buzzer is driven on") { dock.buzzer.level == true }
    #expect(dock.stop() == 0)
    #expect(dock.buzzer.level == false, "driven off on the way out")
    #expect(dock.buzzer.released)
  }
}
