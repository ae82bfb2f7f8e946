import Glibc
import PuckSystem
import Synchronization

@testable import PuckDevices

/// A fresh directory under /tmp for one test's files, removed by `remove()`.
struct ScratchDirectory {
  let path: String

  init() {
    var template = Array("/tmp/puck-audio-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    guard let made else { preconditionFailure("mkdtemp failed") }
    path = String(cString: made)
  }

  func file(_ name: String) -> String { "\(path)/\(name)" }

  func remove() {
    if let dir = opendir(path) {
      while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) {
          String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != "." && name != ".." { unlink(file(name)) }
      }
      closedir(dir)
    }
    rmdir(path)
  }
}

/// A `file` PCM named `ring` writing raw samples to `path` over a `null` slave.
func filePCM(writingTo path: String) -> ALSADevice {
  ALSADevice(
    name: "ring",
    configuration: """
      pcm.ring { type file; slave.pcm { type null }; file "\(path)"; format raw }
      """)
}

func readBytes(_ path: String) -> [UInt8] {
  guard let file = fopen(path, "rb") else { return [] }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = fread(&buffer, 1, buffer.count, file)
    if count == 0 { break }
    bytes += buffer.prefix(count)
  }
  return bytes
}

func writeBytes(_ bytes: [UInt8], to path: String) {
  guard let file = fopen(path, "wb") else { return }
  _ = fwrite(bytes, 1, bytes.count, file)
  fclose(file)
}

func fileSize(_ path: String) -> Int {
  var info = stat()
  return stat(path, &info) == 0 ? Int(info.st_size) : -1
}

/// Little-endian S16 samples from raw bytes.
func samples(_ bytes: [UInt8]) -> [Int16] {
  stride(from: 0, to: bytes.count - 1, by: 2).map {
    Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
  }
}

/// Polls `condition` every millisecond until it holds or `timeout` passes.
func eventually(within timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
  let deadline = MonotonicInstant.now() + timeout
  while MonotonicInstant.now() < deadline {
    if condition() { return true }
    usleep(1000)
  }
  return condition()
}

/// Collects a ringer's events from its playback thread.
final class EventLog: Sendable {
  private let events = Mutex<[AudioEvent]>([])

  var all: [AudioEvent] { events.withLock { $0 } }

  var faults: [AudioFault] {
    all.compactMap { if case .fault(let fault) = $0 { fault } else { nil } }
  }

  func record(_ event: AudioEvent) { events.withLock { $0.append(event) } }

  func contains(_ event: AudioEvent) -> Bool { all.contains(event) }
}
