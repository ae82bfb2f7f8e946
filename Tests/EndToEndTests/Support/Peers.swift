import Foundation
import Glibc
import PuckCore

/// The gid of the `puckalarm` group, created (as a system group) if this machine has none.
func puckalarmGroup() throws -> UInt32 {
  if let entry = getgrnam("puckalarm") { return entry.pointee.gr_gid }
  let created = try runExternal("/usr/sbin/groupadd", ["--system", "puckalarm"])
  guard created.status == 0 || getgrnam("puckalarm") != nil, let entry = getgrnam("puckalarm") else {
    throw HarnessError("groupadd puckalarm: \(created.stderr)")
  }
  return entry.pointee.gr_gid
}

/// The uid of the web app's account, `puck-web` (puckd gives it the `web` role), created as
/// a system user in the `puckalarm` group, as the package's sysusers.d file makes it, if this
/// machine has none.
func puckWebUser() throws -> UInt32 {
  if let entry = getpwnam("puck-web") { return entry.pointee.pw_uid }
  _ = try puckalarmGroup()
  let created = try runExternal(
    "/usr/sbin/useradd",
    [
      "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
      "--groups", "puckalarm", "puck-web",
    ])
  guard let entry = getpwnam("puck-web") else { throw HarnessError("useradd puck-web: \(created.stderr)") }
  return entry.pointee.pw_uid
}

/// `VmRSS` of `pid`, in KiB.
func residentKiB(of pid: Int32) throws -> Int {
  let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
  guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
    let value = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
  else { throw HarnessError("no VmRSS in /proc/\(pid)/status") }
  return value
}

/// One request over a raw socket; nil when the daemon went away before answering.
func controlRequest(_ command: ControlRequest, socket path: String) throws -> ControlReply? {
  let fd = unixSocket(SOCK_STREAM, path: path)
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  var timeout = timeval(tv_sec: Int(10 * Sanitized.slack), tv_usec: 0)
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  let line = ControlWire.encode(command) + [10]
  // MSG_NOSIGNAL: a daemon killed while the request goes out is an EPIPE here, not a SIGPIPE that
  // ends the test runner (the crash churn's in-flight request, on a 500-kill soak).
  guard line.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == line.count
  else { return nil }
  var received: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65536)
  while true {
    while let newline = received.firstIndex(of: 10) {
      let reply = try ControlWire.decodeReply(received[..<newline])
      received.removeSubrange(...newline)
      if reply.ok != nil { return reply }
    }
    let count = read(fd, &chunk, chunk.count)
    guard count > 0 else { return nil }
    received += chunk[..<count]
  }
}
