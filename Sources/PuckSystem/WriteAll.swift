import Glibc

/// Writes every byte of `bytes` through `write`, continuing after short writes and retrying
/// `EINTR`. `write` is one call of the underlying primitive (`write(2)`, `send(2)`) on the
/// remaining bytes; it returns the count written or -1 with `errno` set. The one write loop of
/// the program: files, sockets, pipes and stderr all come through here.
public func writeAll(
  _ bytes: UnsafeRawBufferPointer, name: @autoclosure () -> String = "write",
  using write: (UnsafeRawBufferPointer) -> Int
) throws(SystemError) {
  var offset = 0
  while offset < bytes.count {
    let remaining = UnsafeRawBufferPointer(rebasing: bytes[offset...])
    let written = try systemCall(name()) { write(remaining) }
    // A regular file, pipe or stream socket never takes 0 of a non-empty write; should one do
    // so, report it rather than spin.
    guard written > 0 else { throw SystemError(name(), code: EIO) }
    offset += written
  }
}

/// Writes all of `bytes` to `descriptor` with `write(2)` (files, pipes, stderr).
public func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(SystemError) {
  try bytes.withUnsafeBytes { raw in
    Result { () throws(SystemError) in try writeAll(raw) { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }
  }.get()
}

/// Sends all of `bytes` on the stream socket `descriptor` with `send(2)` and `MSG_NOSIGNAL`, so
/// a peer that went away yields `EPIPE` instead of killing the process with SIGPIPE.
public func sendAll(_ bytes: [UInt8], to descriptor: Int32, flags: Int32 = 0) throws(SystemError) {
  try bytes.withUnsafeBytes { raw in
    Result { () throws(SystemError) in
      try writeAll(raw, name: "send") {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | flags)
      }
    }
  }.get()
}
