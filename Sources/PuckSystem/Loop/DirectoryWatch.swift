import CLinux
import Glibc

/// An inotify watch on one directory, for files that are replaced rather than written (as
/// timedatectl replaces `/etc/localtime`): the loop watches `fd` and asks `changedNames()` which
/// entries changed.
public final class DirectoryWatch {
  /// The inotify descriptor, owned for the watch's life.
  private let descriptor: FileDescriptor
  /// The inotify descriptor to watch for readability (borrowed).
  public var fd: Int32 { descriptor.rawValue }

  /// Watches `directory` for entries created, moved in, written and closed, or deleted
  /// (`inotify_init1`, `inotify_add_watch`).
  public init(directory: String) throws(SystemError) {
    let descriptor = try FileDescriptor("inotify_init1") { inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)) }
    let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE)
    // On failure the descriptor, never stored, is closed as it goes.
    try systemCall("inotify_add_watch") { inotify_add_watch(descriptor.rawValue, directory, mask) }
    self.descriptor = descriptor
  }

  /// The names of the entries that changed since the last call (read until the queue is empty).
  public func changedNames() -> Set<String> {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var names: Set<String> = []
    while true {
      guard let count = try? systemCall("read", { read(fd, &buffer, buffer.count) }), count > 0 else { break }
      var offset = 0
      while offset + MemoryLayout<inotify_event>.size <= count {
        let length = buffer.withUnsafeBytes { raw in
          raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self).len
        }
        let nameStart = offset + MemoryLayout<inotify_event>.size
        let nameBytes = buffer[nameStart..<min(count, nameStart + Int(length))].prefix { $0 != 0 }
        names.insert(String(decoding: nameBytes, as: UTF8.self))
        offset = nameStart + Int(length)
      }
    }
    return names
  }
}
