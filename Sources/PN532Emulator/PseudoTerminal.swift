import Glibc
import PuckSystem

/// A failed system call in the emulator: PuckSystem's `SystemError` under the name the
/// emulator's API and tests use.
public typealias PN532EmulatorError = SystemError

/// A pseudo-terminal pair in raw mode: the emulator talks on the master side, libnfc opens
/// the slave path as if it were a serial port.
///
/// The emulator keeps its own descriptor on the slave open for the pair's whole life: without
/// one, the master reads EIO whenever no client has the slave open (between libnfc's close and
/// its next open), which would look like a dead line.
struct PseudoTerminal: Sendable {
  /// The master side (non-blocking).
  let master: FileDescriptor
  /// The emulator's own descriptor on the slave side; never read or written.
  let slave: FileDescriptor
  /// The slave's path, `/dev/pts/N`.
  let path: String

  /// Opens a new pair and puts the slave in raw mode (`cfmakeraw`) so no line discipline
  /// touches the frames. On failure, what was opened is closed as it goes out of scope.
  ///
  /// Swift's Glibc module does not export `posix_openpt`, `unlockpt` or `ptsname_r`, so this
  /// does what glibc does for them on Linux: open `/dev/ptmx`, clear the lock with
  /// `TIOCSPTLCK`, and read the slave's number with `TIOCGPTN` (`grantpt` has nothing to do on
  /// devpts).
  static func open() throws(PN532EmulatorError) -> PseudoTerminal {
    let master = try FileDescriptor("open /dev/ptmx") {
      Glibc.open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
    }
    var unlock: Int32 = 0
    try systemCall("ioctl TIOCSPTLCK") { ioctl(master.rawValue, Self.setLock, &unlock) }
    var number: UInt32 = 0
    try systemCall("ioctl TIOCGPTN") { ioctl(master.rawValue, Self.getNumber, &number) }
    let path = "/dev/pts/\(number)"
    let slave = try FileDescriptor("open \(path)") { Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC) }
    var settings = termios()
    try systemCall("tcgetattr \(path)") { tcgetattr(slave.rawValue, &settings) }
    cfmakeraw(&settings)
    try systemCall("tcsetattr \(path)") { tcsetattr(slave.rawValue, TCSANOW, &settings) }
    return PseudoTerminal(master: master, slave: slave, path: path)
  }

  /// `TIOCSPTLCK`, `_IOW('T', 0x31, int)`: the Glibc module cannot import the macro. The value
  /// is the asm-generic encoding used on x86-64, arm64 and armhf.
  private static let setLock = UInt(0x4004_5431)
  /// `TIOCGPTN`, `_IOR('T', 0x30, unsigned int)`, as above.
  private static let getNumber = UInt(0x8004_5430)

  /// Closes both sides: a client holding the slave sees a hang-up (reads fail with EIO), as
  /// when a USB serial adapter is pulled.
  func close() {
    slave.close()
    master.close()
  }
}

/// Points `link` at `target`, replacing what was there atomically (`symlink` to a temporary
/// name, then `rename`), so a client never finds the path missing during a restart.
func pointSymlink(_ link: String, at target: String) throws(PN532EmulatorError) {
  let temporary = link + ".new"
  unlink(temporary)
  guard symlink(target, temporary) == 0 else { throw PN532EmulatorError("symlink \(temporary)") }
  guard rename(temporary, link) == 0 else {
    let error = PN532EmulatorError("rename \(link)")
    unlink(temporary)
    throw error
  }
}
