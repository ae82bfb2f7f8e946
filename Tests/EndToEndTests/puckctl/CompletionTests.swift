import Foundation
import Glibc
import Testing

/// Issue 23 item 4: `puckctl completion bash|zsh|fish`, written from the command table, tried
/// in the real shells as a person would: bash and zsh in tmux (keys sent, the screen read
/// back), fish through its own `complete -C`.
@Suite("shell completion")
struct CompletionTests {
  /// A shell in a tmux session of its own (its own server socket, so tests do not meet).
  final class ShellPane {
    let server = "puck-completion-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    init(_ command: String) throws {
      try Self.tmux(["-L", server, "new-session", "-d", "-x", "160", "-y", "40", command])
    }

    /// Ends the tmux server and the shell in it. kill-server alone was seen to leave the server
    /// running when asked from the test process, so the server (its name is this test's own)
    /// is also killed outright.
    func close() {
      try? Self.tmux(["-L", server, "kill-server"])
      _ = try? runExternal("/usr/bin/pkill", ["-KILL", "-f", "tmux -L \(server) "])
    }

    /// Runs tmux with its descriptors on /dev/null, through posix_spawn and waitpid: with
    /// Foundation's Process the client that starts the server was never seen to exit (the server
    /// it leaves behind keeps the socket Process watches for the exit; see `Spawning`).
    static func tmux(_ arguments: [String]) throws {
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      for descriptor: Int32 in [0, 1, 2] {
        posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0)
      }
      var argv = (["tmux"] + arguments).map { strdup($0) } + [nil]
      defer { argv.forEach { free($0) } }
      var pid: pid_t = 0
      let spawned = Spawning.alone { posix_spawn(&pid, "/usr/bin/tmux", &actions, nil, &argv, environ) }
      guard spawned == 0 else { throw HarnessError("tmux: posix_spawn failed (\(spawned))") }
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
      guard status == 0 else { throw HarnessError("tmux \(arguments[2]): wait status \(status)") }
    }

    /// Sends keys as tmux names them (`Tab`, `Enter`, `C-u`) or literal text.
    func send(_ keys: String...) throws {
      _ = try runExternal("/usr/bin/tmux", ["-L", server, "send-keys", "-t", "0"] + keys)
    }

    func screen() throws -> String {
      try runExternal("/usr/bin/tmux", ["-L", server, "capture-pane", "-p", "-t", "0"]).stdout
    }

    /// Clears the screen and the line, then types `text` and presses Tab (twice for a listing).
    func complete(_ text: String, tabs: Int) throws {
      try send("C-u")
      try send("clear", "Enter")
      try waitUntil(timeout: 5, "the screen is clear") {
        try screen().split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.count
          <= 1
      }
      try send("-l", text)
      for _ in 0..<tabs {
        try send("Tab")
        usleep(200_000)
      }
    }

    /// Waits until the screen shows every one of `words`; throws, naming the screen, if not.
    func expectScreen(shows words: [String], _ what: String) throws {
      do {
        try waitUntil(timeout: 5, what) {
          let screen = try self.screen()
          return words.allSatisfy { screen.contains($0) }
        }
      } catch {
        throw HarnessError("\(what): the screen was\n\(try screen())")
      }
    }
  }

  /// The script `puckctl completion SHELL` prints, in a file.
  static func script(_ shell: String) throws -> String {
    let result = try runExternal(Binaries.url("puckctl").path, ["completion", shell])
    guard result.status == 0, !result.stdout.isEmpty else {
      throw HarnessError("puckctl completion \(shell): exit \(result.status), \(result.stderr)")
    }
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("puckctl-completion-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).\(shell)")
      .path
    try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// A clean environment whose PATH finds the built puckctl first.
  static var shellEnvironment: String {
    "env -i PATH=\(Binaries.directory.path):/usr/bin:/bin HOME=/tmp TERM=xterm"
  }

  @Test("bash: al<TAB> is alarm, alarm <TAB><TAB> lists its sub-commands, --days offers the day words")
  func bash() throws {
    let script = try Self.script("bash")
    defer { unlink(script) }
    let pane = try ShellPane("\(Self.shellEnvironment) PS1='$ ' bash --norc --noprofile")
    defer { pane.close() }
    try pane.send("-l", "source \(script)")
    try pane.send("Enter")

    try pane.complete("puckctl al", tabs: 1)
    try pane.expectScreen(shows: ["$ puckctl alarm"], "al<TAB> completes to alarm")

    try pane.complete("puckctl alarm ", tabs: 2)
    try pane.expectScreen(
      shows: ["add", "list", "rm", "enable", "disable", "skip", "edit", "pause", "resume"],
      "alarm <TAB><TAB> lists the sub-commands")

    try pane.complete("puckctl alarm add 06:30 --days ", tabs: 2)
    try pane.expectScreen(
      shows: ["weekdays", "weekends", "daily", "mon", "tue", "wed", "thu", "fri", "sat", "sun"],
      "--days <TAB><TAB> offers the day words")

    try pane.complete("puckctl alarm add 06:30 --days mon,t", tabs: 2)
    try pane.expectScreen(shows: ["mon,tue", "mon,thu"], "a day list completes after its comma")

    try pane.complete("puckctl alarm add 06:30 --da", tabs: 2)
    try pane.expectScreen(shows: ["--days", "--date"], "the command's own options")

    try pane.complete("puckctl --socket /tmp/x reader ", tabs: 2)
    try pane.expectScreen(shows: ["add", "rm", "list"], "--socket PATH is passed over")
  }

  @Test("zsh: al<TAB> is alarm, and --date offers today and tomorrow")
  func zsh() throws {
    let script = try Self.script("zsh")
    defer { unlink(script) }
    let pane = try ShellPane("\(Self.shellEnvironment) PS1='$ ' zsh -f")
    defer { pane.close() }
    try pane.send("-l", "autoload -U compinit && compinit -u -D && source \(script)")
    try pane.send("Enter")

    try pane.complete("puckctl al", tabs: 1)
    try pane.expectScreen(shows: ["$ puckctl alarm"], "al<TAB> completes to alarm")

    try pane.complete("puckctl alarm add 06:30 --date tom", tabs: 1)
    try pane.expectScreen(shows: ["--date tomorrow"], "--date tom<TAB> completes to tomorrow")

    try pane.complete("puckctl reader ", tabs: 2)
    try pane.expectScreen(shows: ["add", "rm", "list"], "reader <TAB> lists its sub-commands")
  }

  @Test("fish: the commands, a group's sub-commands and the day words, from fish's own completer")
  func fish() throws {
    let script = try Self.script("fish")
    defer { unlink(script) }
    func completions(_ line: String) throws -> [String] {
      let result = try runExternal(
        "/usr/bin/fish", ["--no-config", "-c", "source \(script); complete -C '\(line)'"])
      guard result.status == 0 else { throw HarnessError("fish: \(result.stderr)") }
      return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
    }
    #expect(try completions("puckctl al") == ["alarm"])
    #expect(try Set(completions("puckctl alarm ")).isSuperset(of: ["add", "list", "rm", "skip", "pause"]))
    #expect(try Set(completions("puckctl reader ")) == ["add", "rm", "list"])
    #expect(
      try Set(completions("puckctl alarm add 06:30 --days ")).isSuperset(of: ["weekdays", "mon", "sun"]))
    #expect(try Set(completions("puckctl pause --until ")) == ["today", "tomorrow"])
  }

  @Test("every command of the table completes as a first word, in every shell's script")
  func everyCommandIsInEveryScript() throws {
    for shell in ["bash", "zsh", "fish"] {
      let path = try Self.script(shell)
      defer { unlink(path) }
      let text = try String(contentsOfFile: path, encoding: .utf8)
      for word in ["status", "pair", "alarm", "reader", "history", "stats", "calendar", "completion"] {
        #expect(text.contains(word), "\(shell) script lacks \(word)")
      }
    }
    let refused = try runExternal(Binaries.url("puckctl").path, ["completion", "tcsh"])
    #expect(refused.status == 64)
    #expect(refused.stderr.contains("bash, zsh, fish"))
  }
}
