// History log lines (Sources/PuckStorage): the real BackwardLineReader (compiled into this
// module, see fuzz/run) reads a file of arbitrary bytes from its end, with a block size and a
// line limit picked by the first two input bytes, and every line it returns is decoded as a
// HistoryEntry the way HistoryLog does. Checked: the lines tile the file exactly (no byte lost
// or read twice, only the last line may lack its newline), a line is withheld only when it is
// longer than the limit, and they agree with a forward split of the same bytes.

#if canImport(Glibc)
  import Glibc
#endif

/// One scratch file for every input, created once and unlinked at once.
nonisolated(unsafe) private var historyDescriptor: Int32 = -1

func fuzzHistory(_ data: UnsafeBufferPointer<UInt8>) {
  guard data.count >= 2 else { return }
  let blockSize = Int(data[0] % 64) + 1
  let maximumLineBytes = Int(data[1])
  let file = Array(data.dropFirst(2))
  if historyDescriptor < 0 {
    var template = Array("/tmp/puck-fuzz-history.XXXXXX".utf8CString)
    historyDescriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    fuzzCheck(historyDescriptor >= 0, "mkstemp failed: errno \(errno)")
    unlink(template)
  }
  let fd = historyDescriptor
  fuzzCheck(ftruncate(fd, 0) == 0, "ftruncate failed")
  if !file.isEmpty {
    let written = file.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    fuzzCheck(written == file.count, "pwrite wrote \(written) of \(file.count)")
  }

  // The forward split: line contents between newlines, the last one unterminated if non-empty.
  var expected: [(start: Int, end: Int, terminated: Bool)] = []
  var start = 0
  for (index, byte) in file.enumerated() where byte == UInt8(ascii: "\n") {
    expected.append((start, index, true))
    start = index + 1
  }
  if start < file.count { expected.append((start, file.count, false)) }

  var reader = BackwardLineReader(
    descriptor: fd, path: "fuzz-history", end: file.count, blockSize: blockSize,
    maximumLineBytes: maximumLineBytes)
  var got: [BackwardLineReader.Line] = []
  do {
    while let line = try reader.previousLine() {
      got.append(line)
      fuzzCheck(got.count <= file.count + 1, "more lines than bytes")
    }
  } catch {
    fuzzCheck(false, "reading a file that does not change failed: \(error)")
  }
  got.reverse()
  fuzzCheck(got.count == expected.count, "\(got.count) lines read backwards, \(expected.count) forwards")
  for (line, want) in zip(got, expected) {
    fuzzCheck(
      line.start == want.start && line.end == want.end && line.terminated == want.terminated,
      "line \(line.start)..<\(line.end) (terminated \(line.terminated)), expected \(want)")
    let length = line.end - line.start
    if let bytes = line.bytes {
      fuzzCheck(length <= maximumLineBytes, "a \(length)-byte line over the \(maximumLineBytes) limit kept")
      fuzzCheck(bytes[...] == file[line.start..<line.end], "line bytes differ from the file's")
      if let entry = try? DocumentCodec.decode(HistoryEntry.self, from: bytes) {
        // What HistoryLog appends must read back as the same entry.
        if let again = try? DocumentCodec.decode(
          HistoryEntry.self, from: DocumentCodec.encode(entry, pretty: false))
        {
          fuzzCheck(again == entry, "history entry changed in a round trip: \(entry) became \(again)")
        }
      }
    } else {
      fuzzCheck(
        length > maximumLineBytes, "a \(length)-byte line within the \(maximumLineBytes) limit withheld")
    }
  }
}
