import Glibc

/// A POSIX thread for blocking work (ALSA writes, libnfc polls, GPIO waits, the web app's
/// requests, the emulator's read loop), so that it never runs on the caller's thread or in
/// Swift's cooperative pool, where a blocked call would starve other tasks. The one place a
/// thread is started.
public enum SystemThread {
  /// What the new thread runs, handed over through `pthread_create`'s context pointer.
  private final class Body: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
      self.run = run
    }
  }

  /// Runs `body` on a new thread that the caller joins once (`pthread_join`).
  public static func start(_ body: @escaping @Sendable () -> Void) throws(SystemError) -> pthread_t {
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
      &thread, nil,
      { raw in
        guard let raw else { return nil }
        Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
        return nil
      }, context)
    guard status == 0 else {
      Unmanaged<Body>.fromOpaque(context).release()
      throw SystemError("pthread_create", code: status)
    }
    return thread
  }

  /// Runs `body` on a new detached thread (nobody joins it).
  public static func detach(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
    _ = pthread_detach(try start(body))
  }
}
