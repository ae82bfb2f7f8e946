import Foundation
import Glibc
import PuckCore
import Testing

/// Issue 10 item 5: abuse of the control socket while an alarm is due. An unprivileged attacker
/// (`nobody`, a separate process) runs every misbehaviour at once for several seconds across the
/// alarm's time: hundreds of idle connections, slow readers of large replies, multi-megabyte
/// lines, invalid UTF-8, deeply nested JSON and connection churn. The alarm must ring while the
/// attack goes on, root and the group must be answered, memory must stay bounded, and a normal
/// client must be answered afterwards. The figures (lateness, memory) are printed, not asserted
/// against a time: docs/RELIABILITY.md records them.
@Suite("abuse while an alarm is due", .serialized)
struct AbuseWhileDueTests {
  @Test("every abuse at once across an alarm: it rings during the attack; root and the group are served")
  func abuseAcrossAnAlarm() throws {
    let group = try puckalarmGroup()
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    let pid = try #require(dock.process?.processIdentifier)
    // A large reply for the slow readers to sit on.
    for hour in 0..<99 {
      _ = try dock.ctl("alarm", "add", String(format: "%02d:%02d", hour % 24, hour % 60), "--days", "mon")
    }
    let baseline = try residentKiB(of: pid)

    let report = dock.directory.appendingPathComponent("abuse.txt").path
    _ = FileManager.default.createFile(atPath: report, contents: nil)
    chown(report, 65534, 65534)
    let attacker = Process()
    attacker.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
    attacker.arguments = [
      "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", Self.script,
      dock.socketPath, Sanitized.seconds(12), report,
    ]
    attacker.standardOutput = FileHandle.nullDevice
    try attacker.spawn()
    defer {
      kill(attacker.processIdentifier, SIGKILL)
      attacker.waitUntilExit()
    }
    try waitUntil(timeout: 20, "the attack is under way") {
      (try? String(contentsOfFile: report, encoding: .utf8))?.contains("started") == true
    }

    let fire = try dock.addAlarm(inSeconds: 4)
    let due = floor(fire.timeIntervalSince1970)
    var peak = baseline
    var rangAt: Double?
    var rootAnswers = 0
    // The window only detects a ring that never comes: an instrumented daemon beside the rest of
    // the suite answers root a few seconds apart under this attack (the lateness is printed).
    while rangAt == nil && Date().timeIntervalSince1970 < due + 30 * Sanitized.slack {
      peak = max(peak, (try? residentKiB(of: pid)) ?? 0)
      if let reply = try? controlRequest(ControlRequest(.status), socket: dock.socketPath),
        reply.status?.guards.first?.ringing == true
      {
        rangAt = Date().timeIntervalSince1970
      }
      rootAnswers += 1
      usleep(10_000)
    }
    let logEnd = dock.log.split(separator: "\n").suffix(15).joined(separator: "\n")
    let lateness =
      try #require(
        rangAt,
        "the alarm rang during the attack (\(rootAnswers) root requests tried); puckd's log ends: \(logEnd)")
      - due
    #expect(attacker.isRunning, "the attack was still going when the alarm rang")

    let member = try runExternal(
      "/usr/bin/timeout",
      [
        "-s", "KILL", Sanitized.seconds(30), "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
        "--groups=\(group)",
        Binaries.url("puckctl").path, "--socket", dock.socketPath, "stop",
      ])
    // Served during the attack: taken, or refused as too early (stop_after, docs/DESIGN.md W18).
    #expect(
      member.stdout.contains("silenced") || member.stderr.contains("before puckctl stop counts"),
      "the member's stop during the attack: exit \(member.status) \(member.stdout) \(member.stderr)")
    let during = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""

    attacker.waitUntilExit()
    peak = max(peak, (try? residentKiB(of: pid)) ?? 0)
    // The attacker is gone; its last connections are closed as the loop reaches them (under
    // load this takes a moment, and puckctl says "try again in a few seconds"): a normal client
    // is served again within that.
    var after = try dock.ctl("status", as: "nobody")
    for _ in 0..<50 where after.status == 2 && after.stderr.contains("too many connections") {
      usleep(200_000)
      after = try dock.ctl("status", as: "nobody")
    }
    #expect([0, 1].contains(after.status), "a normal client afterwards: \(after.stderr)")
    #expect(dock.process?.isRunning == true)
    // Under a sanitizer (.ci/check-sanitizers) shadow memory and quarantine inflate RSS by
    // hundreds of MiB: the bound is the uninstrumented daemon's.
    if !Sanitized.isOn {
      #expect(peak < baseline + 64 * 1024, "resident memory: \(baseline) KiB before, \(peak) KiB at the peak")
    }
    print(
      "abuse figures: rang \(Int(lateness * 1000)) ms after its second (polled every 10 ms by root, "
        + "\(rootAnswers) root status requests answered meanwhile); RSS \(baseline) KiB before, "
        + "\(peak) KiB peak, \(try residentKiB(of: pid)) KiB after; attacker: "
        + during.split(separator: "\n").last.map(String.init).orEmpty)
  }

  /// Everything at once, for `duration` seconds, from threads of one process as `nobody`.
  private static let script = #"""
    import socket, struct, sys, threading, time
    path, duration, report = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    end = time.monotonic() + duration
    counts = {}
    lock = threading.Lock()
    def count(name):
        with lock:
            counts[name] = counts.get(name, 0) + 1
    def connect():
        peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        peer.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 1, 0))
        peer.connect(path)
        return peer
    def idle():
        held = []
        while time.monotonic() < end:
            try:
                held.append(connect())
                count("idle")
            except OSError:
                time.sleep(0.05)
            if len(held) > 150:
                held.pop(0).close()
    def slow_reader():
        while time.monotonic() < end:
            try:
                peer = connect()
                peer.sendall(b'{"v":1,"command":"alarm.list"}\n')
                count("slow")
                time.sleep(3)
                peer.close()
            except OSError:
                time.sleep(0.05)
    def big_line():
        chunk = b"x" * 65536
        while time.monotonic() < end:
            try:
                peer = connect()
                count("4MiB")
                for _ in range(64):
                    peer.sendall(chunk)
                peer.close()
            except OSError:
                time.sleep(0.01)
    def garbage(line, name):
        def run():
            while time.monotonic() < end:
                try:
                    peer = connect()
                    peer.sendall(line)
                    peer.settimeout(1)
                    peer.recv(4096)
                    count(name)
                    peer.close()
                except OSError:
                    time.sleep(0.01)
        return run
    def churn():
        while time.monotonic() < end:
            try:
                connect().close()
                count("churn")
            except OSError:
                pass
    workers = [idle] + [slow_reader] * 20 + [big_line] * 4 + [
        garbage(b"\xff\xfe\xc3\x28 not utf-8 \xed\xa0\x80\n", "utf8"),
        garbage(b"[" * 60000 + b"\n", "deep"),
        garbage(b'{"v":1,"command":' + b'{"a":' * 20000 + b"1" + b"}" * 20000 + b"}\n", "nested"),
    ] + [churn] * 2
    threads = [threading.Thread(target=work, daemon=True) for work in workers]
    for thread in threads:
        thread.start()
    with open(report, "w") as out:
        out.write("started\n")
    while time.monotonic() < end:
        time.sleep(0.5)
        with lock:
            line = " ".join("%s=%d" % item for item in sorted(counts.items()))
        with open(report, "a") as out:
            out.write(line + "\n")
    """#
}

extension Optional where Wrapped == String {
  fileprivate var orEmpty: String { self ?? "" }
}
