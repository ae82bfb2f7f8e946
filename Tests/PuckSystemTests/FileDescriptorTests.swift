import CLinux
import Glibc
import Testing

@testable import PuckSystem

/// The owning descriptor is closed exactly once: by `close()`, however often it is called, or by
/// `deinit` when still open. Each test watches a pipe's write end from its read end, so "closed"
/// is seen as end of file rather than guessed from a descriptor number.
struct FileDescriptorTests {
  /// A new pipe, both ends owned. Its read end does not block: with the write end still open,
  /// a read fails with `EAGAIN` instead of hanging the test.
  private func makePipe() throws -> (reader: FileDescriptor, writer: FileDescriptor) {
    var numbers: [Int32] = [-1, -1]
    try systemCall("pipe2") { pipe2(&numbers, O_CLOEXEC) }
    let ends = (reader: FileDescriptor(numbers[0]), writer: FileDescriptor(numbers[1]))
    try systemCall("fcntl") { fcntl(numbers[0], F_SETFL, O_NONBLOCK) }
    return ends
  }

  @Test func closingTwiceNeverClosesANumberGivenOutAgain() throws {
    let pipe = try makePipe()
    let number = pipe.writer.rawValue
    pipe.writer.close()
    #expect(!pipe.writer.isOpen)
    #expect(pipe.writer.rawValue == -1, "a late C call gets EBADF, not the old number")
    var byte: UInt8 = 0
    #expect(read(pipe.reader.rawValue, &byte, 1) == 0, "the write end is closed: end of file")
    // Open files until one is given the closed number (the kernel hands out the lowest free
    // one), then close the old value again: the new file must stay open.
    var opened: [FileDescriptor] = []
    defer { for file in opened { file.close() } }
    while opened.last?.rawValue != number, opened.count < 1024 {
      opened.append(try FileDescriptor("open") { open("/dev/null", O_RDONLY | O_CLOEXEC) })
    }
    let reused = try #require(opened.last.flatMap { $0.rawValue == number ? $0 : nil })
    pipe.writer.close()
    #expect(fcntl(reused.rawValue, F_GETFD) != -1, "the file now at \(number) is still open")
  }

  @Test func deinitClosesADescriptorStillOpen() throws {
    let reader: FileDescriptor
    do {
      let pipe = try makePipe()
      reader = pipe.reader
      #expect(pipe.writer.isOpen)
    }
    var byte: UInt8 = 0
    #expect(read(reader.rawValue, &byte, 1) == 0, "the dropped write end was closed: end of file")
  }

  @Test func openingThroughTheFunnelOwnsTheResultOrThrows() throws {
    let file = try FileDescriptor("open") { open("/dev/null", O_RDONLY | O_CLOEXEC) }
    defer { file.close() }
    #expect(file.isOpen && fcntl(file.rawValue, F_GETFD) != -1)
    #expect(throws: SystemError("open", code: ENOENT)) {
      try FileDescriptor("open") { open("/nonexistent/puck", O_RDONLY | O_CLOEXEC) }
    }
  }
}
