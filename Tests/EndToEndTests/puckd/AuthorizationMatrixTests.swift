import Foundation
import Glibc
import PuckCore
import Testing

/// Issue 10 item 6: every socket command from root, a `puckalarm` member (as primary and as
/// supplementary group) and an unrelated user, against the README's table; the files' owners
/// and modes; the pairing file refused when loosened; and no whole UID in any log line.
@Suite("authorization matrix", .serialized)
struct AuthorizationMatrixTests {
  /// Who may send a command, as the README's table says: `group, web` is the group and the
  /// web app's own user, `group` the group but not the web app.
  enum Who: String {
    case root, group, anyone
    case web = "group, web"
  }

  /// The README's "who may do what" table: command words → who.
  static func readmeTable() throws -> [String: Who] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    var table: [String: Who] = [:]
    for line in readme.split(separator: "\n") where line.hasPrefix("| `") {
      let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      guard cells.count == 2, let who = Who(rawValue: cells[1]) else { continue }
      table[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = who
    }
    return table
  }

  /// A command line for each command that reaches the daemon and changes nothing lasting (an
  /// alarm that does not exist, a pause ended at once), so the order does not matter.
  static let sample: [String: [String]] = [
    "status": ["status"], "pair": ["pair", "--timeout", "1"], "unpair": ["unpair"],
    "alarm add": ["alarm", "add", "06:30", "--date", "2099-01-01"], "alarm list": ["alarm", "list"],
    "alarm rm": ["alarm", "rm", "999"], "alarm enable": ["alarm", "enable", "999"],
    "alarm disable": ["alarm", "disable", "999"], "alarm skip": ["alarm", "skip", "999"],
    "alarm edit": ["alarm", "edit", "999", "--label", "x"],
    "alarm pause": ["alarm", "pause", "999", "--until", "tomorrow"],
    "alarm resume": ["alarm", "resume", "999"],
    "pause": ["pause", "--until", "tomorrow"], "resume": ["resume"], "stop": ["stop"],
    "scan": ["scan", "DE:AD:BE:EF"], "override": ["override", "--yes"], "history": ["history"],
    "test": ["test", "--seconds", "1", "--scan-seconds", "0"], "acknowledge": ["acknowledge"],
    "check": ["check"], "pucks": ["pucks"], "awake": ["awake"],
    "reader add": ["reader", "add", "matrix"], "reader rm": ["reader", "rm", "matrix"],
    "reader list": ["reader", "list"], "reload": ["reload"],
  ]

  @Test(
    "every command from root, a member (primary and supplementary group) and a stranger, as the README says")
  func everyCommandEveryRole() throws {
    let table = try Self.readmeTable()
    #expect(
      Set(table.keys) == Set(CommandTable.daemon.map(\.commandLine)), "the README's table lists every command"
    )
    let who: [Role: Who] = [.root: .root, .member: .group, .web: .web, .anyone: .anyone]
    for spec in CommandTable.daemon {
      #expect(table[spec.commandLine] == who[spec.role], "README row for \(spec.commandLine)")
    }

    let group = try puckalarmGroup()
    let web = try puckWebUser()
    let dock = try DaemonHarness(audio: false)
    try dock.writePairing("04:A2:3B:11:22:33:44")
    try dock.start()
    // The web app's user is in the group, as puck-web.service runs it (Group=puckalarm): puckd
    // gives it the web role all the same.
    let peers: [(name: String, credentials: [String]?, rank: Role)] = [
      ("root", nil, .root),
      ("member (primary group)", ["--reuid=65534", "--regid=\(group)", "--clear-groups"], .member),
      ("member (supplementary group)", ["--reuid=65534", "--regid=65534", "--groups=\(group)"], .member),
      ("the web app's user", ["--reuid=\(web)", "--regid=\(group)", "--groups=\(group)"], .web),
      ("stranger", ["--reuid=65534", "--regid=65534", "--clear-groups"], .anyone),
    ]
    var matrix: [String] = []
    for spec in CommandTable.daemon {
      let arguments = try #require(Self.sample[spec.commandLine], "a sample for \(spec.commandLine)")
      var row = spec.commandLine
      for peer in peers {
        var command = ["-s", "KILL", "20"]
        if let credentials = peer.credentials { command += ["/usr/bin/setpriv"] + credentials }
        command += [Binaries.url("puckctl").path, "--socket", dock.socketPath] + arguments
        let result = try runExternal("/usr/bin/timeout", command)
        let denied = result.stderr.contains(
          "\(spec.commandLine.replacingOccurrences(of: " ", with: ".")) needs ")
        #expect(
          denied == (peer.rank < spec.role),
          "\(spec.commandLine) as \(peer.name): exit \(result.status), \(result.stderr.prefix(200))")
        row += denied ? " | refused" : " | served"
      }
      matrix.append(row)
    }
    print(
      "authorization matrix (root | member primary | member supplementary | web app | stranger):\n"
        + matrix.joined(separator: "\n"))

    // `unpair` above was served to root: pair again, through the daemon, which writes the file.
    try dock.pair("04:A2:3B:11:22:33:44")

    // The files: the socket anyone may reach (roles are per request), the state private.
    #expect(try mode(dock.socketPath) & 0o777 == 0o666)
    #expect(try mode(dock.stateDirectory + "/pairing.json") & 0o777 == 0o600)
    for name in ["alarms.json", "guards.json"] {
      let path = dock.stateDirectory + "/" + name
      guard FileManager.default.fileExists(atPath: path) else { continue }
      #expect(try mode(path) & 0o022 == 0, "\(name) is writable by no one but its owner")
      #expect(try owner(path) == geteuid())
    }
    #expect(try owner(dock.stateDirectory + "/pairing.json") == geteuid())

    // A loosened pairing file is refused (and left alone) at the next read.
    chmod(dock.stateDirectory + "/pairing.json", 0o644)
    dock.stop(signal: SIGTERM)
    try dock.start()
    let status = try dock.ctl("status")
    #expect(status.stdout.contains("NOT PROTECTED"))
    #expect(status.stdout.lowercased().contains("pairing"), "\(status.stdout)")
    #expect(try mode(dock.stateDirectory + "/pairing.json") & 0o777 == 0o644, "left as it is")

    // No whole UID in any log line of the run.
    for uid in ["04:A2:3B:11:22:33:44", "04A23B11223344", "DE:AD:BE:EF"] {
      #expect(!dock.log.uppercased().contains(uid), "\(uid) appears unmasked in the log")
    }
  }
}

private func mode(_ path: String) throws -> mode_t {
  var info = stat()
  guard stat(path, &info) == 0 else { throw HarnessError("stat \(path): errno \(errno)") }
  return info.st_mode
}

private func owner(_ path: String) throws -> uid_t {
  var info = stat()
  guard stat(path, &info) == 0 else { throw HarnessError("stat \(path): errno \(errno)") }
  return info.st_uid
}
