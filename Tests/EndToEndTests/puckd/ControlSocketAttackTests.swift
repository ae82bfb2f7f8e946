import Foundation
import Glibc
import PuckCore
import Testing

/// Attacks on the control socket from unprivileged local users (issue 8, items 1, 2 and 7): a real
/// `puckd`, a real socket, and attackers that are separate processes running as `nobody`.
@Suite("control socket under attack", .serialized)
struct ControlSocketAttackTests {
  @Test("a peer that asks for a large reply and hangs up before reading it does not kill puckd")
  func hangUpWhileReplyWaits() throws {
    let dock = try attackedDock()
    let attack = try Attacker.run(dock, mode: "hangup", peers: 3)
    #expect(attack.status == 0, "attacker: \(attack.stderr)")
    try expectAlive(dock)
  }

  @Test("a peer that keeps sending while it slowly reads a large reply does not kill puckd")
  func keepSendingWhileReplyWaits() throws {
    let dock = try attackedDock()
    let attack = try Attacker.run(dock, mode: "chatter", peers: 3)
    #expect(attack.status == 0, "attacker: \(attack.stderr)")
    try expectAlive(dock)
  }

  @Test("64+ peers that never read their large replies lock out neither root nor the group, and are dropped")
  func slowReadersTakeEverySlot() throws {
    let group = try puckalarmGroup()
    let dock = try attackedDock()
    let pid = try #require(dock.process?.processIdentifier)
    let idleSockets = try socketCount(of: pid)
    let attacker = try Attacker.start(dock, mode: "hold", peers: 80)
    defer { attacker.terminate() }
    try waitUntil(timeout: 30, "the attacker has connected its peers") {
      (try? String(contentsOfFile: attacker.report, encoding: .utf8))?.hasPrefix("ready") == true
    }

    // The peers hold every unprivileged slot now; root and the group must still be answered.
    let root = try runExternal(
      "/usr/bin/timeout",
      [
        "-s", "KILL", Sanitized.seconds(60), Binaries.url("puckctl").path, "--socket", dock.socketPath,
        "status",
      ])
    #expect(root.status == 0 || root.status == 1, "root's status: exit \(root.status) \(root.stderr)")
    let member = try runExternal(
      "/usr/bin/timeout",
      [
        "-s", "KILL", Sanitized.seconds(60), "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
        "--groups=\(group)",
        Binaries.url("puckctl").path, "--socket", dock.socketPath, "stop",
      ])
    #expect(
      member.status == 3, "the member's stop, with nothing to do: exit \(member.status) \(member.stderr)")
    #expect(member.stdout.contains("nothing is ringing"))

    // Their replies make no progress: every one is dropped, however long the attacker waits.
    try waitUntil(timeout: 40, "the slow readers are dropped") { try socketCount(of: pid) <= idleSockets }
    #expect(attacker.isRunning, "the attacker still holds its end of every connection")
    let resident = try residentKiB(of: pid)
    // Not under a sanitizer: its shadow memory and quarantine inflate RSS (.ci/check-sanitizers).
    if !Sanitized.isOn {
      #expect(resident < 96 * 1024, "puckd's resident memory after the attack: \(resident) KiB")
    }
    try expectAlive(dock)
  }

  @Test("puckctl reports a refusal that arrives before its request is written, not a closed connection")
  func refusalBeforeTheRequest() throws {
    // Found by the abuse test under AddressSanitizer, where a slow client made the race common:
    // puckd, every slot taken, answers a newcomer "too many connections" and closes at once; a
    // puckctl that had not written its request yet got EPIPE and said only "puckd closed the
    // connection". Here a socket answers every connection as puckd's refusal does (the same line,
    // then close), and strace holds puckctl's request back for half a second after it connected,
    // so the refusal always comes first.
    let dock = try DaemonHarness(audio: false)
    let path = dock.directory.appendingPathComponent("refusing.sock").path
    let listener = unixSocket(SOCK_STREAM, path: path, bind: true)
    try #require(listener >= 0)
    defer { close(listener) }
    #expect(listen(listener, 4) == 0)
    let refusal =
      ControlWire.encode(
        .failure(ControlFailure(.refused, "puckd has too many connections; try again in a few seconds")))
      + [UInt8(ascii: "\n")]
    let server = Thread {
      let fd = accept(listener, nil, nil)
      guard fd >= 0 else { return }
      _ = refusal.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      close(fd)
    }
    server.start()
    let refused = try runExternal(
      "/usr/bin/timeout",
      [
        "-s", "KILL", "30", "/usr/bin/strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=sendto",
        "-e", "inject=sendto:delay_enter=500000", Binaries.url("puckctl").path, "--socket", path, "status",
      ])
    #expect(refused.status == 2, "exit \(refused.status): \(refused.stderr)")
    #expect(refused.stderr.contains("too many connections"), "puckctl said: \(refused.stderr)")
  }

  @Test("a member with more than 64 supplementary groups is served as a member")
  func manySupplementaryGroups() throws {
    let group = try puckalarmGroup()
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    // Numeric gids need no entry in /etc/group; 70000+ stays clear of any real group.
    let throwaway = (0..<100).map { String(70_000 + $0) }
    func stop(groups: [String]) throws -> ProcessResult {
      try runExternal(
        "/usr/bin/setpriv",
        [
          "--reuid=65534", "--regid=65534", "--groups=\(groups.joined(separator: ","))",
          Binaries.url("puckctl").path, "--socket", dock.socketPath, "stop",
        ])
    }
    let stranger = try stop(groups: throwaway)
    #expect(stranger.status != 0, "without the group the same peer is refused")
    #expect(stranger.stderr.contains("needs root or the puckalarm group"))
    let member = try stop(groups: throwaway + [String(group)])
    #expect(member.status == 3, "stop as a member with 101 groups, nothing to do: \(member.stderr)")
    #expect(member.stdout.contains("nothing is ringing"))
  }

  // MARK: - Helpers

  /// A daemon whose `history --limit 1000` reply is several times the kernel's socket buffer.
  private func attackedDock() throws -> DaemonHarness {
    let dock = try DaemonHarness(audio: false)
    // The largest label the limits allow on the wire: 64 graphemes (the character limit), each
    // a quote, which doubles on the wire, carrying a 3-byte combining mark: 256 bytes (the byte
    // limit) that send 320. 1000 entries (the page limit) make a reply of about half a MiB.
    // (Escaped by hand: a Swift string search for the quote would not find it inside a
    // grapheme.)
    let encodedLabel = String(repeating: #"\""# + "\u{20D0}", count: 64)
    let line =
      #"{"payload": {"outcome": "missed", "occurrence": {"alarmID": 1, "label": "\#(encodedLabel)", "#
      + #""time": "06:30", "scheduledAt": "2026-03-30T03:30:00Z", "requiresPuck": true, "isOneShot": false}, "#
      + #""closedAt": "2026-03-30T05:30:00Z", "bypassCount": 0, "rings": 0}, "schemaVersion": 1}"#
    try FileManager.default.createDirectory(atPath: dock.stateDirectory, withIntermediateDirectories: true)
    try String(repeating: line + "\n", count: 1000).write(
      toFile: dock.stateDirectory + "/history.jsonl", atomically: true, encoding: .utf8)
    try dock.start()
    let reply = try wireReply(dock, #"{"v":1,"command":"history","limit":1000}"#)
    #expect(
      reply.contains(#""ok":true"#) || reply.contains(#""ok" : true"#), "history failed: \(reply.prefix(300))"
    )
    let buffer =
      Int(
        try String(contentsOfFile: "/proc/sys/net/core/wmem_default", encoding: .utf8)
          .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 212_992
    #expect(reply.utf8.count > 2 * buffer, "the reply must not fit in the socket buffer")
    return dock
  }

  /// Sends one raw request line and returns the reply as it crossed the socket (what the
  /// daemon had to write, before `puckctl` re-renders it).
  private func wireReply(_ dock: DaemonHarness, _ request: String) throws -> String {
    let fd = unixSocket(SOCK_STREAM, path: dock.socketPath)
    guard fd >= 0 else { throw HarnessError("cannot connect to \(dock.socketPath)") }
    defer { close(fd) }
    let line = Array((request + "\n").utf8)
    guard line.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == line.count
    else {
      throw HarnessError("could not send the request")
    }
    var reply: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = read(fd, &chunk, chunk.count)
      if count <= 0 { break }
      reply += chunk[..<count]
    }
    return String(decoding: reply, as: UTF8.self)
  }

  /// The daemon survived: it runs, answers, and an alarm added now rings.
  private func expectAlive(_ dock: DaemonHarness) throws {
    let status = try dock.ctl("status")
    // A trap's first line says what killed it; the backtrace after it is too long to show.
    let trap = dock.log.split(separator: "\n").first { $0.contains("Fatal error") } ?? ""
    #expect(status.status == 0 || status.status == 1, "status: \(status.stderr) \(trap)")
    #expect(dock.process?.isRunning == true, "puckd died: \(trap)")
    try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 15, "the alarm rings") { try dock.isRinging() }
  }
}

/// How many sockets `pid` has open (its listener, its clients, its log and notify sockets).
private func socketCount(of pid: Int32) throws -> Int {
  let directory = "/proc/\(pid)/fd"
  return try FileManager.default.contentsOfDirectory(atPath: directory).filter { name in
    (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name))?
      .hasPrefix("socket:") == true
  }.count
}

/// An unprivileged attacker: a Python process running as `nobody` that opens connections to the
/// daemon's socket and misbehaves with them.
///
/// - `hangup`: each peer asks for a large reply, waits until it starts to arrive, and closes.
/// - `chatter`: each peer asks for a large reply and keeps sending bytes while it reads it slowly.
/// - `hold`: each peer asks for a large reply and never reads; `ready N` goes to the report file
///   once the peers are connected, and the process keeps them until it is killed.
final class Attacker {
  private let process: Process
  /// Where the attacker writes its progress (readable by the test).
  let report: String

  private init(process: Process, report: String) {
    self.process = process
    self.report = report
  }

  /// Starts an attacker on `dock`'s socket with `peers` connections.
  static func start(_ dock: DaemonHarness, mode: String, peers: Int) throws -> Attacker {
    let report = dock.directory.appendingPathComponent("attacker-\(mode).txt").path
    _ = FileManager.default.createFile(atPath: report, contents: nil)
    chown(report, 65534, 65534)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
    process.arguments = [
      "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script,
      dock.socketPath, mode, String(peers), report,
    ]
    process.standardOutput = FileHandle.nullDevice
    try process.spawn()
    return Attacker(process: process, report: report)
  }

  /// Runs an attacker to completion (within 60 s).
  static func run(_ dock: DaemonHarness, mode: String, peers: Int) throws -> ProcessResult {
    try runExternal(
      "/usr/bin/timeout",
      [
        "-s", "KILL", Sanitized.seconds(60), "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
        "--clear-groups",
        "/usr/bin/python3", "-c",
        script, dock.socketPath, mode, String(peers), "/dev/null",
      ])
  }

  var isRunning: Bool { process.isRunning }

  /// Kills the attacker and waits for it.
  func terminate() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  private static let script = #"""
    import socket, struct, sys, time
    path, mode, count, report = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    request = b'{"v":1,"command":"history","limit":1000}\n'
    connected = []
    for _ in range(count):
        peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # Past the daemon's slots a connection may wait in the backlog (a blocking connect waits
        # there up to the send timeout), or be refused.
        peer.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 1, 0))
        try:
            peer.connect(path)
        except OSError:
            peer.close()
            continue
        connected.append(peer)
    # Every connection first, then every request: the peers take all the slots they can get
    # before the daemon is busy answering.
    peers = []
    for peer in connected:
        try:
            peer.sendall(request)
        except OSError:
            peer.close()
            continue
        peers.append(peer)
    if mode == "hangup":
        for peer in peers:
            # Wait until the reply starts to arrive, and then a moment more: by then the daemon
            # has filled the socket and queued the rest, waiting for room to write it.
            peer.settimeout(20)
            peer.recv(1, socket.MSG_PEEK)
        time.sleep(1)
        for peer in peers:
            peer.close()
    elif mode == "chatter":
        for peer in peers:
            peer.settimeout(20)
            peer.recv(1, socket.MSG_PEEK)
            peer.setblocking(False)
            received = 0
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    peer.send(b"more bytes, never a request\n")
                except BlockingIOError:
                    pass
                except OSError:
                    break
                try:
                    chunk = peer.recv(4096)
                except BlockingIOError:
                    time.sleep(0.001)
                    continue
                except OSError:
                    break
                if not chunk:
                    break
                received += len(chunk)
            peer.close()
    else:
        with open(report, "w") as out:
            out.write("ready %d\n" % len(peers))
        while True:
            time.sleep(60)
    """#
}
