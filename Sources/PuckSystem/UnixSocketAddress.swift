import Glibc

/// A `sockaddr_un` for a path (or, with a leading `@`, an abstract-namespace name as systemd
/// writes them in `$NOTIFY_SOCKET`).
public struct UnixSocketAddress: Sendable {
  private var storage = sockaddr_un()
  /// The length to pass to bind/connect/sendto.
  public let length: socklen_t

  /// Nil when the path does not fit in `sun_path`.
  public init?(_ path: String) {
    var bytes = Array(path.utf8)
    if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
    guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: storage.sun_path) else { return nil }
    storage.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &storage.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes[0] == 0 ? 0 : 1))
  }

  /// Calls `body` with the address as a `sockaddr` pointer and its length.
  public func withSockaddr<Result, Failure: Error>(
    _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let length = length
    return try withUnsafePointer(to: storage) { (pointer) throws(Failure) in
      try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(Failure) in
        try body(address, length)
      }
    }
  }
}
