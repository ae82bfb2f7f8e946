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
  let master: Int32
  /// The emulator's own descriptor on the slave side; never read or written.
  let slave: Int32
  /// The slave's path, `/dev/pts/N`.
  let path: String

  /// Opens a new pair and puts the slave in raw mode (`cfmakeraw`) so no line discipline
  /// touches the frames.
  ///
  /// Swift's Glibc module does not export `posix_openpt`, `unlockpt` or `ptsname_r`, so this
  /// does what glibc does for them on Linux: open `/dev/ptmx`, clear the lock with
  /// `TIOCSPTLCK`, and read the slave's number with `TIOCGPTN` (`grantpt` has nothing to do on
  /// devpts).
  static func open() throws(PN532EmulatorError) -> PseudoTerminal {
    let master = Glibc.open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
    guard master >= 0 else { throw PN532EmulatorError("open /dev/ptmx") }
    var unlock: Int32 = 0
    guard ioctl(master, Self.setLock, &unlock) == 0 else {
      let error = PN532EmulatorError("ioctl TIOCSPTLCK")
      Glibc.close(master)
      throw error
    }
    var number: UInt32 = 0
    guard ioctl(master, Self.getNumber, &number) == 0 else {
      let error = PN532EmulatorError("ioctl TIOCGPTN")
      Glibc.close(master)
      throw error
    }
    let path = "/dev/pts/\(number)"
    let slave = Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard slave >= 0 else {
      let error = PN532EmulatorError("open \(path)")
      Glibc.close(master)
      throw error
    }
    var settings = termios()
    guard tcgetattr(slave, &settings) == 0 else {
      let error = PN532EmulatorError("tcgetattr \(path)")
      Glibc.close(slave)
      Glibc.close(master)
      throw error
    }
    cfmakeraw(&settings)
    guard tcsetattr(slave, TCSANOW, &settings) == 0 else {
      let error = PN532EmulatorError("tcsetattr \(path)")
      Glibc.close(slave)
      Glibc.close(master)
      throw error
    }
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
    Glibc.close(slave)
    Glibc.close(master)
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
