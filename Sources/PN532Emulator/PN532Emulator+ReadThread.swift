import Glibc
import PuckSystem

/// The read thread: it owns the pseudo-terminal, decodes the host's frames, has the chip answer
/// them under the shared mutex, and carries out the requests (adopt, close, stop) of the other
/// threads.
extension PN532Emulator {
  static func run(_ initial: PseudoTerminal, _ shared: Shared, _ fieldChanged: Wakeup, baudRate: Int?) {
    var pty: PseudoTerminal? = initial
    // At a baud rate (slot-faithful), each direction of the serial line takes its time.
    var toHost = baudRate.map(UARTLine.init)
    var fromHost = baudRate.map(UARTLine.init)
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
      if let due { send(due, to: current.master.rawValue, byteDelay: byteDelay, line: &toHost) }
      let nextCheck = shared.withLock { $0.chip.nextCheck }
      var timeout: Int32 = 20
      if let nextCheck { timeout = min(timeout, max(0, (nextCheck - Self.now()).pollMilliseconds)) }
      var descriptors = [
        pollfd(fd: current.master.rawValue, events: Int16(POLLIN), revents: 0),
        pollfd(fd: fieldChanged.fd, events: Int16(POLLIN), revents: 0),
      ]
      guard poll(&descriptors, 2, timeout) > 0 else { continue }
      if descriptors[1].revents != 0 { _ = fieldChanged.drain() }
      guard descriptors[0].revents != 0 else { continue }
      let count = read(current.master.rawValue, &buffer, buffer.count)
      guard count > 0 else {
        pause()
        continue
      }
      // The pseudo-terminal hands over at once what a UART delivers a byte at a time: the
      // chip has the command when its last byte would have arrived.
      var received = Self.now()
      if let arrived = fromHost?.send(count, at: received).last {
        sleep(until: arrived)
        received = arrived
      }
      for frame in decoder.feed(buffer[0..<count]) {
        let (output, byteDelay) = shared.withLock { ($0.answer(frame, at: received), $0.byteDelay) }
        send(output, to: current.master.rawValue, byteDelay: byteDelay, line: &toHost)
      }
    }
  }

  /// Writes an answer at once, a byte at a time with `byteDelay` between bytes, or (on a
  /// `line` at a baud rate) each byte no earlier than it would have crossed the line.
  private static func send(
    _ output: [UInt8], to descriptor: Int32, byteDelay: Duration?, line: inout UARTLine?
  ) {
    guard !output.isEmpty else { return }
    guard let byteDelay else {
      if var paced = line {
        pace(output, to: descriptor, on: &paced)
        line = paced
      } else {
        transmit(output, to: descriptor)
      }
      return
    }
    for byte in output {
      transmit([byte], to: descriptor)
      var interval = byteDelay.waitTimespec
      nanosleep(&interval, nil)
    }
  }

  /// Writes each byte once its arrival time has come; bytes already due go out together, so
  /// a late wake-up never makes the line faster than its baud rate, only later.
  private static func pace(_ output: [UInt8], to descriptor: Int32, on line: inout UARTLine) {
    let arrivals = line.send(output.count, at: now())
    var sent = 0
    while sent < output.count {
      let current = now()
      var due = sent
      while due < arrivals.count, arrivals[due] <= current { due += 1 }
      if due > sent {
        transmit(Array(output[sent..<due]), to: descriptor)
        sent = due
      } else {
        sleep(until: arrivals[sent])
      }
    }
  }

  /// Sleeps until the monotonic instant `deadline`.
  static func sleep(until deadline: Duration) {
    let (seconds, attoseconds) = deadline.components
    var wake = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    // An absolute deadline: the funnel's retry after a signal sleeps on to the same instant.
    try? systemCallReturningError("clock_nanosleep") {
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nil)
    }
  }

  /// Writes `bytes` through the one write loop (`writeAll`, which retries `EINTR` and short
  /// writes); a full buffer (nobody reads the slave) is waited on a little, then the rest
  /// dropped, as a UART's would be.
  private static func transmit(_ bytes: [UInt8], to descriptor: Int32) {
    var waits = 0
    _ = bytes.withUnsafeBytes { raw in
      Result { () throws(SystemError) in
        try writeAll(raw) { rest in
          while true {
            let written = write(descriptor, rest.baseAddress, rest.count)
            guard written < 0, errno != EINTR, waits < 100 else { return written }
            waits += 1
            pause()
          }
        }
      }
    }
  }

  static func pause() {
    var interval = timespec(tv_sec: 0, tv_nsec: 2_000_000)
    nanosleep(&interval, nil)
  }

  /// The chip model's time: CLOCK_MONOTONIC since its origin. The model (`PN532Chip`,
  /// `UARTLine`) is pure and counts in `Duration`s, so its tests give it times by hand.
  static func now() -> Duration {
    MonotonicInstant.now().sinceOrigin
  }
}
