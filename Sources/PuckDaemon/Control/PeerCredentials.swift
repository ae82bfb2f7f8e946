import CLinux
import Glibc
import PuckSystem

/// The peer on the other end of a control connection, from `SO_PEERCRED` / `SO_PEERGROUPS`.
struct PeerCredentials {
  let pid: Int32
  let uid: UInt32
  let gid: UInt32
  let groups: [UInt32]

  /// The credentials of the peer connected on `fd`, or nil when the kernel does not say.
  init?(socket fd: Int32) {
    // struct ucred { pid_t pid; uid_t uid; gid_t gid; } — declared only under _GNU_SOURCE.
    var cred: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
    var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
    guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0 else { return nil }
    pid = cred.pid
    uid = cred.uid
    gid = cred.gid
    groups = Self.supplementaryGroups(of: fd)
  }

  /// The peer's supplementary groups (`SO_PEERGROUPS`), or none if they cannot be read. A
  /// peer may have up to NGROUPS_MAX (65536) of them: when the buffer is too small the kernel
  /// fails with ERANGE and puts the length it needs in `optlen`, so ask again with that size
  /// (the groups were fixed at connect, so one retry suffices; a third try is for safety only).
  private static func supplementaryGroups(of fd: Int32) -> [UInt32] {
    let entrySize = MemoryLayout<UInt32>.size
    var groups = [UInt32](repeating: 0, count: 64)
    var failure = SystemError("getsockopt(SO_PEERGROUPS)", code: EIO)
    for _ in 0..<3 {
      var length = socklen_t(groups.count * entrySize)
      do throws(SystemError) {
        try systemCall("getsockopt(SO_PEERGROUPS)") {
          getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, &groups, &length)
        }
        return Array(groups.prefix(Int(length) / entrySize))
      } catch {
        failure = error
      }
      let needed = Int(length) / entrySize
      guard failure.code == ERANGE, needed > groups.count, needed <= 65536 else { break }
      groups = [UInt32](repeating: 0, count: needed)
    }
    Log.warning("control socket: \(failure); the peer's groups are ignored")
    return []
  }
}
