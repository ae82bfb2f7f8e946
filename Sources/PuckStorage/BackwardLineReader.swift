import Glibc

/// Reads the lines of an open file from a given end towards its start, a block at a time with
/// `pread`, so that the newest lines of an append-only file cost the same whatever its size.
struct BackwardLineReader {
  /// One line: where it lies in the file and its bytes, without the newline.
  struct Line {
    /// Offset of its first byte.
    var start: Int
    /// Offset just past its last byte, not counting the newline.
    var end: Int
    /// Its content; nil when it is longer than `maximumLineBytes` (it is then not kept).
    var bytes: [UInt8]?
    /// Whether a newline ends it (only the file's last line can lack one).
    var terminated: Bool
  }

  private let descriptor: Int32
  private let path: String
  private let blockSize: Int
  private let maximumLineBytes: Int
  /// The file's bytes from `chunkStart` up to `next`, read but not yet returned.
  private var chunk: [UInt8] = []
  private var chunkStart: Int
  /// Everything before this offset is still to be returned.
  private var next: Int

  /// A reader of the lines of `descriptor` that lie before offset `end`. A line longer than
  /// `maximumLineBytes` is returned without its bytes, so a corrupt file with no newlines
  /// cannot make the reader hold all of it.
  init(descriptor: Int32, path: String, end: Int, blockSize: Int = 64 * 1024, maximumLineBytes: Int = 1 << 20)
  {
    self.descriptor = descriptor
    self.path = path
    self.blockSize = max(1, blockSize)
    self.maximumLineBytes = maximumLineBytes
    chunkStart = end
    next = end
  }

  /// The line ending just before the previous one returned (the last line first), or nil at
  /// the start of the file.
  mutating func previousLine() throws(FileSystemError) -> Line? {
    guard next > 0 else { return nil }
    if chunkStart >= next { try readPreviousBlock() }
    let terminated = chunk[next - 1 - chunkStart] == UInt8(ascii: "\n")
    let contentEnd = terminated ? next - 1 : next
    var searchEnd = contentEnd
    var oversized = false
    let start: Int
    while true {
      if let newline = chunk[..<(searchEnd - chunkStart)].lastIndex(of: UInt8(ascii: "\n")) {
        start = chunkStart + newline + 1
        break
      }
      if chunkStart == 0 {
        start = 0
        break
      }
      if contentEnd - chunkStart > maximumLineBytes {
        // Too long to be an entry: keep looking for its start, without keeping its bytes.
        oversized = true
        searchEnd = chunkStart
        chunk = []
      }
      try readPreviousBlock()
    }
    oversized = oversized || contentEnd - start > maximumLineBytes
    let bytes = oversized ? nil : Array(chunk[(start - chunkStart)..<(contentEnd - chunkStart)])
    chunk.removeSubrange((start - chunkStart)...)
    next = start
    return Line(start: start, end: contentEnd, bytes: bytes, terminated: terminated)
  }

  /// Prepends the block before `chunkStart` to `chunk`.
  private mutating func readPreviousBlock() throws(FileSystemError) {
    let blockStart = max(0, chunkStart - blockSize)
    let block = try Self.read(descriptor, path: path, range: blockStart..<chunkStart)
    chunk = block + chunk
    chunkStart = blockStart
  }

  /// The bytes of `range`, with as many `pread` calls as it takes. A file that ends before
  /// `range` does (truncated while being read) is an error, not a short line.
  static func read(_ descriptor: Int32, path: String, range: Range<Int>) throws(FileSystemError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: range.count)
    var done = 0
    while done < range.count {
      let count = try systemCall("read", path: path) {
        bytes.withUnsafeMutableBytes { buffer in
          pread(
            descriptor, buffer.baseAddress.map { $0 + done }, range.count - done,
            off_t(range.lowerBound + done))
        }
      }
      guard count > 0 else {
        throw FileSystemError(operation: "read (it became shorter)", path: path, code: EIO)
      }
      done += count
    }
    return bytes
  }
}
