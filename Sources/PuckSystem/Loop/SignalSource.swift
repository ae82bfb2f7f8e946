import CLinux
import Glibc

/// SIGTERM, SIGINT and SIGHUP as loop events through a signalfd: the signals are blocked for
/// every thread and read as data, so no work ever runs inside an async signal handler.
public final class SignalSource {
  /// The signalfd, owned for the source's life.
  private let descriptor: FileDescriptor
  /// The signalfd to watch (borrowed).
  public var fd: Int32 { descriptor.rawValue }

  /// Blocks `signals` in the calling thread (call before starting other threads, which inherit
  /// the mask) and opens a signalfd for them.
  public init(_ signals: [Int32]) throws(SystemError) {
    var mask = sigset_t()
    sigemptyset(&mask)
    for signal in signals { sigaddset(&mask, signal) }
    let status = pthread_sigmask(SIG_BLOCK, &mask, nil)
    if status != 0 { throw SystemError("pthread_sigmask", code: status) }
    descriptor = try FileDescriptor("signalfd") { signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK)) }
  }

  /// The signals that arrived since the last read.
  public func drain() -> [Int32] {
    var received: [Int32] = []
    var info = signalfd_siginfo()
    while read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
      received.append(Int32(info.ssi_signo))
    }
    return received
  }
}
