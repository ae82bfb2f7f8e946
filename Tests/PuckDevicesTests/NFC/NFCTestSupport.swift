import Glibc
import PN532Emulator
import PuckCore
import PuckDevices
import Synchronization
import Testing

/// libnfc reads its environment in `nfc_init`: no scanning of serial ports (intrusive and
/// slow), and no error chatter from the faults the tests cause on purpose unless asked for.
func configureLibNFCForTests() {
  setenv("LIBNFC_AUTO_SCAN", "false", 1)
  setenv("LIBNFC_INTRUSIVE_SCAN", "false", 1)
  setenv("LIBNFC_LOG_LEVEL", "0", 0)
}

/// Collects a reader's events for a test to wait on.
final class EventRecorder: Sendable {
  private let events = Mutex<[TagReaderEvent]>([])

  /// The handler to give the reader.
  var handler: @Sendable (TagReaderEvent) -> Void {
    { [self] event in self.events.withLock { $0.append(event) } }
  }

  /// Everything recorded so far.
  var all: [TagReaderEvent] {
    events.withLock { $0 }
  }

  /// The scans recorded so far.
  var scans: [(TagUID, fresh: Bool)] {
    all.compactMap { if case .scanned(let uid, let fresh) = $0 { (uid, fresh) } else { nil } }
  }

  /// The removals recorded so far.
  var removals: Int {
    all.filter { $0 == .removed }.count
  }

  /// The health reports recorded so far.
  var healths: [DeviceCondition] {
    all.compactMap { if case .health(let health) = $0 { health } else { nil } }
  }
}

/// An emulated PN532 behind a symlink in a fresh temporary directory, removed at the end.
final class EmulatedReader {
  let directory: String
  let emulator: PN532Emulator

  init() throws {
    var template = Array("/tmp/puck-nfc.XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else { throw PN532EmulatorError("mkdtemp") }
    directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    emulator = try PN532Emulator(linkPath: directory + "/ttyPN532")
  }

  deinit {
    emulator.shutdown()
    rmdir(directory)
  }

  /// `pn532_uart:<tmp>/ttyPN532`: stable across kill and restart.
  var connstring: String {
    "pn532_uart:" + directory + "/ttyPN532"
  }

  /// Waits until the reader has polled `count` more times than now: by then it has seen
  /// whatever lies on the antenna.
  func waitForPolls(_ count: Int = 2, within seconds: Double = 5) -> Bool {
    let start = emulator.count(of: .inListPassiveTarget)
    return eventually(within: .milliseconds(Int(seconds * 1000))) {
      emulator.count(of: .inListPassiveTarget) >= start + count
    }
  }
}

let sevenByteUID: [UInt8] = [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44]
let fourByteUID: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
