import Glibc
import PuckStorage
import Testing

@Suite struct StateDirectoryLockTests {
  @Test("a second lock on the same directory is refused with the holder's pid; released when dropped")
  func oneHolderAtATime() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let state = try StateDirectory(path: scratch.path)
    var first: StateDirectoryLock? = try StateDirectoryLock(state)
    #expect(first != nil)
    #expect(throws: StorageError.inUse(path: state.path, pid: getpid())) { try StateDirectoryLock(state) }
    first = nil
    // The holder went away (as a killed daemon's lock does): the next daemon gets it.
    #expect(acquire(state) != nil, "the lock was not released")
  }

  /// The lock, tried for up to 2 s: a process another test spawns in parallel holds a copy of
  /// the descriptor between its fork and its exec (O_CLOEXEC closes it there), and so the lock
  /// for that instant.
  private func acquire(_ state: StateDirectory) -> StateDirectoryLock? {
    for _ in 0..<200 {
      if let lock = try? StateDirectoryLock(state) { return lock }
      usleep(10_000)
    }
    return nil
  }

  @Test("release lets the next holder in while the first object still lives (a clean exit)")
  func releasedOnAskingTwice() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let state = try StateDirectory(path: scratch.path)
    let first = try StateDirectoryLock(state)
    first.release()
    first.release()
    let second = try #require(acquire(state))
    #expect(throws: StorageError.inUse(path: state.path, pid: getpid())) { try StateDirectoryLock(state) }
    withExtendedLifetime(first) {}
    second.release()
  }
}
