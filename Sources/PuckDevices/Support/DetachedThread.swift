import Glibc

/// A detached POSIX thread for blocking device work (ALSA writes, libnfc polls, GPIO waits),
/// so that it never runs on the caller's thread or in Swift's cooperative pool, where a
/// blocked call would starve other tasks.
public enum DetachedThread {
  /// What the new thread runs, handed over through `pthread_create`'s context pointer.
  private final class Start: Sendable {
    let body: @Sendable () -> Void

    init(body: @escaping @Sendable () -> Void) {
      self.body = body
    }
  }

  /// Runs `body` on a new detached thread. Returns 0, or the `pthread_create` error number
  /// when no thread could be started.
  public static func start(_ body: @escaping @Sendable () -> Void) -> Int32 {
    let context = Unmanaged.passRetained(Start(body: body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(
      &thread, nil,
      { raw in
        guard let raw else { return nil }
        let start = Unmanaged<Start>.fromOpaque(raw).takeRetainedValue()
        start.body()
        return nil
      }, context)
    guard result == 0 else {
      Unmanaged<Start>.fromOpaque(context).release()
      return result
    }
    _ = pthread_detach(thread)
    return 0
  }
}
