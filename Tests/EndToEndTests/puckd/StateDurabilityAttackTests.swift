import Foundation
import Glibc
import Testing

private let paired = "04:A2:3B:11:22:33:44"
private let stranger = "04:99:88:77:66:55:44"

/// Attacks on the state directory of a real `puckd`: files that cannot be read, a history that
/// cannot be appended to, crashes between writes, and temporary files left by crashes
/// (issue 8, items 4, 8 and 9).
@Suite("puckd state durability attacks", .serialized)
struct StateDurabilityAttackTests {
  /// A daemon with a paired tag and one open, ringing wake-up, killed with SIGKILL so the
  /// guard is left open on disk. Returns the guard's ID.
  /// A running dock with the paired tag whose alarm is ringing.
  /// Overrides here close at once (`override_delay = 0s`): these tests are about what is on disk
  /// after the closing, not about the delay (`OverrideDelayTests`); a stop counts after 5 s of
  /// ring (`stop_after`, the least it takes).
  private func ringingDock(config: String = "") throws -> DaemonHarness {
    let immediate =
      config.contains("[enforcement]")
      ? config.replacingOccurrences(
        of: "[enforcement]\n", with: "[enforcement]\noverride_delay = 0s\nstop_after = 5s\n")
      : config + "\n[enforcement]\noverride_delay = 0s\nstop_after = 5s\n"
    let dock = try DaemonHarness(config: immediate, audio: false)
    try dock.writePairing(paired)
    try dock.start()
    try dock.addAlarm(inSeconds: 2)
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    return dock
  }

  private func dockWithOpenGuard(config: String = "") throws -> (DaemonHarness, String) {
    let dock = try ringingDock(config: config)
    dock.stop(signal: SIGKILL)
    let ids = guardIDs(dock, "guards.json")
    #expect(ids.count == 1)
    return (dock, ids.first ?? "no guard")
  }

  /// The outcomes of the history entries journaled in guards.json, waiting to be recorded.
  private func pendingOutcomes(_ dock: DaemonHarness) -> [String] {
    guard let data = FileManager.default.contents(atPath: path(dock, "guards.json")),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let payload = object["payload"] as? [String: Any]
    else { return [] }
    let pending = payload["pendingHistory"] as? [[String: Any]] ?? []
    return pending.compactMap { $0["outcome"] as? String }
  }

  /// The IDs of the open guards in a guards file, as it is on disk.
  private func guardIDs(_ dock: DaemonHarness, _ name: String) -> [String] {
    guard let data = FileManager.default.contents(atPath: path(dock, name)),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let payload = object["payload"] as? [String: Any],
      let guards = payload["guards"] as? [[String: Any]]
    else { return [] }
    return guards.compactMap { $0["id"] as? String }
  }

  private func path(_ dock: DaemonHarness, _ name: String) -> String {
    dock.stateDirectory + "/" + name
  }

  private func text(_ dock: DaemonHarness, _ name: String) -> String {
    (try? String(contentsOfFile: path(dock, name), encoding: .utf8)) ?? ""
  }

  /// The file type of `name` without following a symbolic link (S_IFREG, S_IFDIR, S_IFLNK).
  private func fileType(_ dock: DaemonHarness, _ name: String) -> mode_t? {
    var info = stat()
    guard lstat(path(dock, name), &info) == 0 else { return nil }
    return info.st_mode & S_IFMT
  }

  private func history(_ dock: DaemonHarness) throws -> [[String: Any]] {
    let result = try dock.ctl("history", "--json")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    return object?["history"] as? [[String: Any]] ?? []
  }

  /// `puckctl pair`, answered with two simulated scans of the paired tag; its exit status and
  /// error output.
  private func pairWithScans(_ dock: DaemonHarness) throws -> (status: Int32, stderr: String) {
    let waitingBefore = dock.log.components(separatedBy: "pairing: waiting").count
    let pairing = Process()
    pairing.executableURL = Binaries.url("puckctl")
    pairing.arguments = ["--socket", dock.socketPath, "pair", "--timeout", "20s"]
    let errors = try CapturedOutput()
    pairing.standardOutput = FileHandle.nullDevice
    pairing.standardError = errors.handle
    try pairing.spawn()
    try waitUntil(timeout: 5, "pairing is waiting") {
      dock.log.components(separatedBy: "pairing: waiting").count > waitingBefore
    }
    for _ in 0..<2 { _ = try dock.ctl("scan", paired) }
    pairing.waitUntilExit()
    return (pairing.terminationStatus, errors.text)
  }

  private func reasons(_ status: [String: Any]) -> [String] {
    status["reasons"] as? [String] ?? []
  }

  private func problems(_ status: [String: Any]) -> [String] {
    status["problems"] as? [String] ?? []
  }

  // MARK: - Item 4: a read error on one state file

  @Test(
    "alarms.json cannot be read (a directory, EISDIR): the open guard still rings and is never written away")
  func unreadableAlarmsKeepTheGuard() throws {
    let (dock, id) = try dockWithOpenGuard()
    try FileManager.default.removeItem(atPath: path(dock, "alarms.json"))
    #expect(mkdir(path(dock, "alarms.json"), 0o700) == 0)
    try dock.start()

    #expect(try dock.isRinging(), "the open wake-up rings whatever else fails")
    let status = try dock.status()
    #expect(status["protected"] as? Bool == false)
    #expect(reasons(status).contains { $0.contains("alarms.json") }, "\(reasons(status))")
    #expect(problems(status).contains { $0.contains("alarms.json") }, "\(problems(status))")
    #expect(
      dock.log.split(separator: "\n").contains { $0.hasPrefix("<3>") && $0.contains("alarms.json") })

    // Activity that writes state: an alarm change, a wrong tag, a bypass.
    let add = try dock.ctl("alarm", "add", "07:00", "--days", "weekdays")
    #expect(add.status != 0, "an alarm change would write over the unreadable alarms.json")
    #expect(add.stderr.contains("alarms.json"), "\(add.stderr)")
    #expect(try dock.ctl("scan", stranger).status == 0)
    #expect(try dock.stopOnceHeard().status == 0)
    #expect(try dock.guards().count == 1)

    #expect(fileType(dock, "alarms.json") == S_IFDIR, "the unreadable file is never replaced")
    #expect(guardIDs(dock, "guards.json") == [id], "guards.json still holds the open wake-up")
    #expect(guardIDs(dock, "guards.json.prev") == [id], "and so does its last good copy")

    // After a restart it is still open.
    dock.stop(signal: SIGKILL)
    try dock.start()
    #expect(try dock.guards().count == 1)
  }

  @Test("guards.json unreadable with no last good copy: an alarm that fell due within the grace still rings")
  func unreadableGuardsWithoutCopyStillRing() throws {
    let dock = try DaemonHarness(audio: false)
    dock.environment["TZ"] = "UTC"
    let formatter = DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "HH:mm:ss"
    let due = formatter.string(from: Date().addingTimeInterval(-300))
    try dock.writeState(
      "alarms.json",
      payload:
        #"{"alarms": [{"id": 1, "time": "\#(due)", "days": ["mon","tue","wed","thu","fri","sat","sun"], "#
        + #""label": "", "enabled": true, "requiresPuck": true}], "nextID": 2}"#)
    // guards.json is a symbolic link to itself (ELOOP, even for root), and there is no .prev.
    #expect(symlink("guards.json", path(dock, "guards.json")) == 0)
    try dock.start()
    #expect(try dock.isRinging(), "five minutes late is within the grace: it must ring")
    #expect(fileType(dock, "guards.json") == S_IFLNK, "the unreadable guards.json is never replaced")
  }

  @Test(
    "guards.json cannot be read (a symbolic-link loop, ELOOP): it is never written over, and status says so")
  func unreadableGuardsAreNotWrittenOver() throws {
    let (dock, id) = try dockWithOpenGuard()
    let prevBefore = text(dock, "guards.json.prev")
    let prevHeldTheGuard = guardIDs(dock, "guards.json.prev") == [id]
    try FileManager.default.removeItem(atPath: path(dock, "guards.json"))
    #expect(symlink("guards.json", path(dock, "guards.json")) == 0)
    try dock.start()

    let status = try dock.status()
    #expect(status["protected"] as? Bool == false)
    #expect(reasons(status).contains { $0.contains("guards.json") }, "\(reasons(status))")
    #expect(problems(status).contains { $0.contains("guards.json") }, "\(problems(status))")
    #expect(
      dock.log.split(separator: "\n").contains { $0.hasPrefix("<3>") && $0.contains("guards.json") })
    if prevHeldTheGuard {
      #expect(try dock.guards().count == 1, "the last good copy's open wake-up is resumed")
    }

    // State-writing activity while the file cannot be read.
    _ = try dock.stopOnceHeard()
    _ = try dock.ctl("scan", stranger)
    #expect(try dock.ctl("alarm", "add", "07:00", "--days", "weekdays").status == 0)
    #expect(fileType(dock, "guards.json") == S_IFLNK, "the unreadable guards.json is never replaced")
    #expect(text(dock, "guards.json.prev") == prevBefore, "nor is its last good copy")

    // Once it reads again (here: the link is gone, so the file is absent), saves resume.
    #expect(unlink(path(dock, "guards.json")) == 0)
    #expect(try dock.ctl("alarm", "add", "08:00", "--days", "weekends").status == 0)
    try waitUntil(timeout: 5, "guards.json is written again") {
      self.fileType(dock, "guards.json") == S_IFREG
    }
    let after = try dock.status()
    #expect(!problems(after).contains { $0.contains("guards.json") && $0.contains("cannot be read") })
  }

  @Test("pairing.json cannot be read (a socket, ENXIO): pair and unpair do not replace it; status says so")
  func unreadablePairingIsNotReplaced() throws {
    let dock = try DaemonHarness(audio: false)
    try FileManager.default.createDirectory(atPath: dock.stateDirectory, withIntermediateDirectories: true)
    let socket = unixSocket(SOCK_STREAM, path: path(dock, "pairing.json"), bind: true)
    #expect(socket >= 0)
    close(socket)  // the socket file stays; open(2) on it fails with ENXIO, even for root
    try dock.start()

    let status = try dock.status()
    #expect(reasons(status).contains { $0.contains("pairing.json") }, "\(reasons(status))")
    #expect(problems(status).contains { $0.contains("pairing.json") }, "\(problems(status))")

    let refused = try pairWithScans(dock)
    #expect(refused.status != 0, "pairing over an unreadable pairing file is refused")
    #expect(refused.stderr.contains("pairing.json"), "\(refused.stderr)")
    let unpair = try dock.ctl("unpair")
    #expect(unpair.status != 0)
    #expect(unpair.stderr.contains("pairing.json"), "says why, not 'no puck is paired': \(unpair.stderr)")
    #expect(fileType(dock, "pairing.json") == S_IFSOCK, "the unreadable pairing file is never replaced")
    #expect(try dock.status()["pairedTag"] == nil)

    // Once it is gone (nothing left to lose), pairing works again.
    #expect(unlink(path(dock, "pairing.json")) == 0)
    #expect(try pairWithScans(dock).status == 0)
    #expect(fileType(dock, "pairing.json") == S_IFREG)
    #expect(try !problems(dock.status()).contains { $0.contains("pairing.json") })
  }

  // MARK: - Item 8: a closed guard always has its history entry

  @Test("history cannot be appended to (a directory): the override is kept, shown, and recorded once it can")
  func failedHistoryAppendIsKept() throws {
    let (dock, id) = try dockWithOpenGuard()
    try? FileManager.default.removeItem(atPath: path(dock, "history.jsonl"))
    #expect(mkdir(path(dock, "history.jsonl"), 0o700) == 0)
    try dock.start()
    #expect(try dock.isRinging())

    let override = try dock.ctl("override", "--yes")
    #expect(override.status == 0, "\(override.stderr)")
    #expect(try dock.guards().isEmpty)
    let status = try dock.status()
    #expect(problems(status).contains { $0.contains("history") }, "\(problems(status))")
    #expect(reasons(status).contains { $0.contains("history") }, "\(reasons(status))")
    let journal = text(dock, "guards.json")
    #expect(pendingOutcomes(dock) == ["overridden"], "the entry waits in guards.json")
    #expect(guardIDs(dock, "guards.json").isEmpty)
    #expect(id.hasPrefix("1@"))

    // A crash now, with the history still unwritable, loses nothing either.
    dock.stop(signal: SIGKILL)
    try dock.start()
    #expect(try dock.guards().isEmpty)
    #expect(pendingOutcomes(dock) == ["overridden"])

    // History writable again: the entry is recorded, once.
    #expect(rmdir(path(dock, "history.jsonl")) == 0)
    let entries = try history(dock)
    #expect(entries.count == 1, "\(entries)")
    #expect(entries.first?["outcome"] as? String == "overridden")
    #expect(pendingOutcomes(dock).isEmpty, "the journal is cleared once recorded")
    #expect(try !problems(dock.status()).contains { $0.contains("history") })

    // A crash after the append and before the journal was cleared: on start the entry is
    // found in history and not appended again.
    dock.stop(signal: SIGKILL)
    try journal.write(toFile: path(dock, "guards.json"), atomically: true, encoding: .utf8)
    chmod(path(dock, "guards.json"), 0o600)
    try dock.start()
    #expect(try history(dock).count == 1, "never two entries")
    #expect(try dock.guards().isEmpty)
    #expect(pendingOutcomes(dock).isEmpty)
  }

  @Test("kill -9 right after an override or a wake-up: the guard is open or its entry exists, once")
  func crashRightAfterClosing() throws {
    for closing in [["override", "--yes"], ["scan", paired]] {
      let dock = try ringingDock()
      #expect(try dock.ctl(closing).status == 0)
      dock.stop(signal: SIGKILL)
      try dock.start()
      let open = try dock.guards().count
      let recorded = try history(dock).count
      #expect(open + recorded == 1, "\(closing): \(open) open guard(s), \(recorded) history entr(ies)")
      dock.stop(signal: SIGKILL)
      try dock.start()
      #expect(try history(dock).count == recorded, "a restart never duplicates an entry")
    }
  }

  @Test("kill -9 between closing the guard and appending its entry (the append held up): it is recorded once")
  func crashBetweenTheTwoWrites() throws {
    for closing in [["override", "--yes"], ["scan", paired]] {
      let dock = try ringingDock()
      #expect(guardIDs(dock, "guards.json").count == 1)

      // history.jsonl becomes a FIFO whose buffer is full: the daemon's append blocks in
      // write(2), after whatever it wrote before it, which holds it in the crash window.
      #expect(mkfifo(path(dock, "history.jsonl"), 0o600) == 0)
      let fifo = open(path(dock, "history.jsonl"), O_RDWR | O_NONBLOCK | O_CLOEXEC)
      #expect(fifo >= 0)
      for size in [4096, 1] {
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: size)
        while write(fifo, chunk, size) == size {}
      }
      let request = Process()
      request.executableURL = Binaries.url("puckctl")
      request.arguments = ["--socket", dock.socketPath] + closing
      request.standardOutput = FileHandle.nullDevice
      request.standardError = FileHandle.nullDevice
      try request.spawn()
      try waitUntil(timeout: 5, "the guard is gone from guards.json") {
        self.guardIDs(dock, "guards.json").isEmpty
      }
      dock.stop(signal: SIGKILL)
      request.waitUntilExit()
      close(fifo)
      #expect(unlink(path(dock, "history.jsonl")) == 0)

      try dock.start()
      let open = try dock.guards().count
      let entries = try history(dock)
      #expect(open == 0 && entries.count == 1, "\(closing): \(open) open guard(s), entries \(entries)")
      dock.stop(signal: SIGKILL)
      try dock.start()
      #expect(try history(dock).count == 1, "a restart never duplicates the entry")
    }
  }

  // MARK: - Item 9: temporary files left by crashes

  @Test("temporary files left by interrupted writes are removed at start; real files are untouched")
  func staleTemporaryFilesAreRemoved() throws {
    let dock = try DaemonHarness(audio: false)
    try dock.start()
    #expect(try dock.ctl("alarm", "add", "06:30", "--days", "weekdays").status == 0)
    dock.stop(signal: SIGKILL)
    let stale = [
      ".alarms.json.tmp-4242-123456", ".guards.json.tmp-4242-99", ".guards.json.prev.tmp-4242-link",
    ]
    for name in stale {
      #expect(FileManager.default.createFile(atPath: path(dock, name), contents: Data("half".utf8)))
    }
    let alarmsBefore = text(dock, "alarms.json")
    try dock.start()
    for name in stale {
      #expect(fileType(dock, name) == nil, "\(name) is removed")
      #expect(dock.log.contains(name), "the removal of \(name) is logged")
    }
    #expect(text(dock, "alarms.json") == alarmsBefore)
    #expect(try dock.ctl("alarm", "list").stdout.contains("06:30"))
  }
}
