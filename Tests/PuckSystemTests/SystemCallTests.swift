import CLinux
import Dispatch
import Glibc
import Synchronization
import Testing

@testable import PuckSystem

struct SystemCallTests {
  @Test func retriesInterruptedCalls() throws {
    var calls = 0
    let result = try systemCall("fake") { () -> Int32 in
      calls += 1
      if calls <= 2 {
        errno = EINTR
        return -1
      }
      return 7
    }
    #expect(result == 7)
    #expect(calls == 3)
  }

  @Test func turnsOtherFailuresIntoSystemError() {
    var calls = 0
    #expect(throws: SystemError("open", code: ENOENT)) {
      try systemCall("open") { () -> Int32 in
        calls += 1
        errno = ENOENT
        return -1
      }
    }
    #expect(calls == 1)
  }

  @Test func callsThatReturnTheErrorNumberShareTheRetry() throws {
    var codes: [Int32] = [EINTR, EINTR, 0]
    try systemCallReturningError("clock_nanosleep") { codes.removeFirst() }
    #expect(codes.isEmpty, "EINTR retried until the call succeeds")
    #expect(throws: SystemError("pthread_sigmask", code: EINVAL)) {
      try systemCallReturningError("pthread_sigmask") { EINVAL }
    }
  }

  @Test func describesTheCallAndStrerror() {
    #expect("\(SystemError("bind", code: ENAMETOOLONG))" == "bind: File name too long")
  }
}

struct WriteAllTests {
  /// A pipe whose buffer is shrunk to one page, so a write larger than that must be split.
  private func smallPipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    try systemCall("pipe2") { pipe2(&ends, O_CLOEXEC) }
    // F_SETPIPE_SZ (1031), which Swift's Glibc module leaves out without _GNU_SOURCE.
    _ = fcntl(ends[1], 1031, 4096)
    return (ends[0], ends[1])
  }

  @Test func writesEverythingAcrossPartialWrites() throws {
    let (readEnd, writeEnd) = try smallPipe()
    defer { close(readEnd) }
    let bytes = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    var received: [UInt8] = []
    var writeCalls = 0
    // The reader drains on another thread while the writer blocks on the full pipe.
    let reader = Thread { () -> [UInt8] in
      var all: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 1000)
      while true {
        let count = read(readEnd, &chunk, chunk.count)
        if count <= 0 { return all }
        all += chunk[0..<count]
      }
    }
    try bytes.withUnsafeBytes { raw in
      try writeAll(raw) { rest in
        writeCalls += 1
        // Never offer more than the pipe holds, so every call is a short write of the whole.
        return write(writeEnd, rest.baseAddress, min(rest.count, 3000))
      }
    }
    close(writeEnd)
    received = reader.join()
    #expect(received == bytes)
    #expect(writeCalls >= 7)
  }

  @Test func retriesInterruptedWrites() throws {
    let (readEnd, writeEnd) = try smallPipe()
    defer {
      close(readEnd)
      close(writeEnd)
    }
    var interrupted = false
    try [1, 2, 3].map(UInt8.init).withUnsafeBytes { raw in
      try writeAll(raw) { rest in
        if !interrupted {
          interrupted = true
          errno = EINTR
          return -1
        }
        return write(writeEnd, rest.baseAddress, rest.count)
      }
    }
    var back = [UInt8](repeating: 0, count: 3)
    #expect(read(readEnd, &back, 3) == 3)
    #expect(back == [1, 2, 3])
  }

  @Test func reportsABrokenPipe() throws {
    var ends: [Int32] = [-1, -1]
    try systemCall("pipe2") { pipe2(&ends, O_CLOEXEC) }
    close(ends[0])
    defer { close(ends[1]) }
    // SIGPIPE would end the test runner: ignore it so the write returns EPIPE instead.
    let previous = signal(SIGPIPE, SIG_IGN)
    defer { signal(SIGPIPE, previous) }
    #expect(throws: SystemError("write", code: EPIPE)) { try writeAll([1], to: ends[1]) }
  }
}

/// Work on another thread whose result a test waits for, for tests that need a second thread
/// briefly (a pipe reader, a poster into a loop).
final class Thread<Value: Sendable>: Sendable {
  private let result = Mutex<Value?>(nil)
  private let done = DispatchSemaphore(value: 0)

  init(_ body: @escaping @Sendable () -> Value) {
    DispatchQueue.global().async { [self] in
      let value = body()
      result.withLock { $0 = value }
      done.signal()
    }
  }

  func join() -> Value {
    done.wait()
    guard let value = result.withLock({ $0 }) else { preconditionFailure("the thread ended without a value") }
    return value
  }
}
