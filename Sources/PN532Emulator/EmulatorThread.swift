import Glibc

/// A detached POSIX thread for the emulator's read loop, so the loop never occupies a thread
/// of Swift's cooperative pool while it waits for bytes.
enum EmulatorThread {
  /// What the new thread runs, handed over through `pthread_create`'s context pointer.
  private final class Body: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
      self.run = run
    }
  }

  /// Runs `body` on a new detached thread; throws when none could be started.
  static func start(_ body: @escaping @Sendable () -> Void) throws(PN532EmulatorError) {
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
      throw PN532EmulatorError("pthread_create", code: status)
    }
    pthread_detach(thread)
  }
}
