import Glibc

/// A detached POSIX thread for the reader's blocking libnfc calls, so they never run on the
/// caller's thread or in Swift's cooperative pool, where a call stuck on a dead reader would
/// starve other tasks.
enum ReaderThread {
  /// What the new thread runs, handed over through `pthread_create`'s context pointer.
  private final class Body: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
      self.run = run
    }
  }

  /// Runs `body` on a new detached thread. Returns 0, or the `pthread_create` error number.
  static func start(_ body: @escaping @Sendable () -> Void) -> Int32 {
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
      return status
    }
    pthread_detach(thread)
    return 0
  }
}
