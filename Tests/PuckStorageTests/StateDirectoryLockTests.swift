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
    _ = try StateDirectoryLock(state)
  }

  @Test("release lets the next holder in while the first object still lives (a clean exit)")
  func releasedOnAskingTwice() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let state = try StateDirectory(path: scratch.path)
    let first = try StateDirectoryLock(state)
    first.release()
    first.release()
    let second = try StateDirectoryLock(state)
    #expect(throws: StorageError.inUse(path: state.path, pid: getpid())) { try StateDirectoryLock(state) }
    withExtendedLifetime(first) {}
    second.release()
  }
}
