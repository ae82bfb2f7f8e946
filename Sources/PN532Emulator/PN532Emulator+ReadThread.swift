import Glibc
import PuckSystem

/// The read thread: it owns the pseudo-terminal, decodes the host's frames, has the chip answer
/// them under the shared mutex, and carries out the requests (adopt, close, stop) of the other
/// threads.
extension PN532Emulator {
  static func run(_ initial: PseudoTerminal, _ shared: Shared, _ fieldChanged: Wakeup) {
    var pty: PseudoTerminal? = initial
    var decoder = HSUFrameDecoder()
    var buffer = [UInt8](repeating: 0, count: 512)
    while true {
      // Carry out a request before clearing it, so the requester sees it done.
      let request = shared.withLock { $0.request }
      switch request {
      case .adopt(let next)?:
        pty?.close()
        pty = next
        decoder = HSUFrameDecoder()
        shared.withLock { $0.adopted(next.path) }
      case .close?:
        pty?.close()
        pty = nil
        shared.withLock { $0.closed() }
      case .stop?:
        pty?.close()
        shared.withLock { $0.stop() }
        return
      case nil:
        break
      }
      guard let current = pty else {
        pause()
        continue
      }
      // A command that waits (a listing until a tag comes, InAutoPoll's rounds) answers when
      // the field changes or at its next round boundary.
      let (due, byteDelay) = shared.withLock { ($0.resumed(at: Self.now()), $0.byteDelay) }
      if let due { send(due, to: current.master, byteDelay: byteDelay) }
      let nextCheck = shared.withLock { $0.chip.nextCheck }
      var timeout: Int32 = 20
      if let nextCheck { timeout = min(timeout, max(0, (nextCheck - Self.now()).pollMilliseconds)) }
      var descriptors = [
        pollfd(fd: current.master, events: Int16(POLLIN), revents: 0),
        pollfd(fd: fieldChanged.fd, events: Int16(POLLIN), revents: 0),
      ]
      guard poll(&descriptors, 2, timeout) > 0 else { continue }
      if descriptors[1].revents != 0 { _ = fieldChanged.drain() }
      guard descriptors[0].revents != 0 else { continue }
      let count = read(current.master, &buffer, buffer.count)
      guard count > 0 else {
        pause()
        continue
      }
      for frame in decoder.feed(buffer[0..<count]) {
        let (output, byteDelay) = shared.withLock { ($0.answer(frame, at: Self.now()), $0.byteDelay) }
        send(output, to: current.master, byteDelay: byteDelay)
      }
    }
  }

  /// Writes an answer at once, or a byte at a time with `byteDelay` between bytes.
  private static func send(_ output: [UInt8], to descriptor: Int32, byteDelay: Duration?) {
    guard let byteDelay else {
      if !output.isEmpty { writeAll(output, to: descriptor) }
      return
    }
    for byte in output {
      writeAll([byte], to: descriptor)
      var interval = byteDelay.waitTimespec
      nanosleep(&interval, nil)
    }
  }

  private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    var offset = 0
    var attempts = 0
    while offset < bytes.count, attempts < 100 {
      let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
      if written > 0 {
        offset += written
      } else {
        // The pseudo-terminal's buffer is full (nobody reads the slave): wait a little, then
        // give up on this response as a UART would.
        attempts += 1
        pause()
      }
    }
  }

  static func pause() {
    var interval = timespec(tv_sec: 0, tv_nsec: 2_000_000)
    nanosleep(&interval, nil)
  }

  private static func now() -> Duration {
    SystemClock.monotonic.now()
  }

  static func monotonicNow() -> Int64 {
    SystemClock.monotonic.now().roundedUpNanoseconds
  }
}
