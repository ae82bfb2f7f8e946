import Glibc
import PuckCore
import PuckPassword
import PuckStorage

/// `sudo puckctl web password`: asks for the web app's password twice without echo (or reads
/// one line when standard input is not a terminal, for scripts), and stores its yescrypt hash
/// in the web password file, root:puckalarm 0640 (`WebPasswordFile`).
struct WebPasswordCommand {
  let request: ControlRequest

  func run() throws -> ExitCode {
    let path = request.text(.file) ?? WebPasswordFile.systemPath
    // The system file is root's to write; --file names one of the caller's own (development).
    guard request.text(.file) != nil || geteuid() == 0 else {
      PuckCtl.printError("puckctl: web password needs root: sudo puckctl web password")
      return .permissionDenied
    }
    guard let password = try readPassword() else { return .failure }
    let hash = try PasswordHash(hashing: password)
    try WebPasswordFile.write(hash.encoded, to: path)
    print("web password set (\(path)); sessions of the old password end at their next page")
    return .success
  }

  /// The new password: typed twice on a terminal, with the echo off; one line otherwise. Nil
  /// (after saying why) when the two differ.
  private func readPassword() throws -> String? {
    guard isatty(0) == 1 else {
      guard let line = readLine(strippingNewline: true) else {
        throw UsageError("web password: no password on standard input")
      }
      return line
    }
    let first = try Self.readWithoutEcho(prompt: "New web password: ")
    try PasswordHash.check(first)
    let second = try Self.readWithoutEcho(prompt: "Again: ")
    guard first == second else {
      PuckCtl.printError("puckctl: the two passwords differ; nothing changed")
      return nil
    }
    return first
  }

  /// One line from the terminal on standard input, with its echo turned off meanwhile.
  private static func readWithoutEcho(prompt: String) throws -> String {
    print(prompt, terminator: "")
    fflush(nil)
    var saved = termios()
    guard tcgetattr(0, &saved) == 0 else { throw UsageError("web password: cannot read the terminal") }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    tcsetattr(0, TCSAFLUSH, &quiet)
    defer {
      tcsetattr(0, TCSAFLUSH, &saved)
      print("")
    }
    guard let line = readLine(strippingNewline: true) else {
      throw UsageError("web password: no password typed")
    }
    return line
  }
}
