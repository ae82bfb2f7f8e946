import Glibc
import PuckSystem
import Testing

@testable import PN532Emulator

/// The slot-faithful timing model (`PN532Chip.RFTiming`, `UARTLine`): a listing takes its RF
/// time and the serial line its baud rate. The chip and the line are driven with a manual
/// clock; through the pseudo-terminal only lower bounds are checked (the model never answers
/// sooner than it says), since tests never time how fast things are.
@Suite("PN532 emulator: slot-faithful timing")
struct PN532SlotFaithfulTests {
  private let puck = EmulatedTag(uid: [0x04, 0xA2, 0x3B, 0x11, 0x22, 0x33, 0x44])
  private let timing = PN532Chip.RFTiming(attempt: .milliseconds(5), activation: .milliseconds(3))
  /// RFConfiguration item 5 as libnfc sends it with infinite select off: MxRtyPassiveActivation 2.
  private let boundedRetries: [UInt8] = [0x32, 0x05, 0x00, 0x01, 0x02]
  private let listA: [UInt8] = [0x4A, 0x01, 0x00]

  private func timedChip() -> PN532Chip {
    var chip = PN532Chip()
    chip.rfTiming = timing
    #expect(chip.handle(boundedRetries) == .response([]))
    return chip
  }

  @Test("a listing with no tag answers 'no target' only when its three attempts are over")
  func emptyListingTakesItsAttempts() {
    var chip = timedChip()
    let start = Duration.seconds(10)
    #expect(chip.handle(listA, at: start) == .waiting)
    #expect(timing.emptyListing(retries: 0x02) == .milliseconds(15))
    #expect(chip.nextCheck == start + .milliseconds(5), "the next attempt")
    #expect(chip.resume(at: start + .microseconds(14_999)) == nil)
    #expect(chip.resume(at: start + .milliseconds(15)) == .response([0x00]))
    #expect(chip.pending == nil)
  }

  @Test("a tag in the field is listed after its activation, not at once")
  func tagTakesItsActivation() {
    var chip = timedChip()
    chip.tag = puck
    #expect(chip.handle(listA, at: .seconds(1)) == .waiting)
    #expect(chip.nextCheck == .seconds(1) + .milliseconds(3))
    #expect(chip.resume(at: .seconds(1) + .microseconds(2_999)) == nil)
    guard case .response(let data)? = chip.resume(at: .seconds(1) + .milliseconds(3)) else {
      Issue.record("no listing after the activation")
      return
    }
    #expect(data.prefix(2) == [0x01, 0x01])
    #expect(Array(data.suffix(7)) == puck.uid)
  }

  @Test("a tag laid down during an attempt is seen by the next attempt")
  func tagDuringAnAttemptWaitsForTheNext() {
    var chip = timedChip()
    #expect(chip.handle(listA, at: .zero) == .waiting)
    // Laid at 7 ms, in the second attempt (5–10 ms): the third, at 10 ms, sees it.
    chip.tag = puck
    chip.fieldChangedAt = .milliseconds(7)
    #expect(chip.resume(at: .milliseconds(7)) == nil)
    #expect(chip.resume(at: .microseconds(12_999)) == nil)
    #expect(chip.resume(at: .milliseconds(13)) != .response([0x00]))
    #expect(chip.pending == nil)
  }

  @Test("a tag lifted during its activation is not listed")
  func liftedTagIsNotListed() {
    var chip = timedChip()
    chip.tag = puck
    #expect(chip.handle(listA, at: .zero) == .waiting)
    chip.tag = nil
    #expect(chip.resume(at: .milliseconds(3)) == .response([0x00]))
  }

  @Test("with MxRtyPassiveActivation 0xFF the attempts go on until a tag comes")
  func endlessAttempts() {
    var chip = PN532Chip()
    chip.rfTiming = timing
    #expect(chip.handle(listA, at: .zero) == .waiting)
    #expect(chip.resume(at: .seconds(60)) == nil)
    chip.tag = puck
    chip.fieldChangedAt = .seconds(60) + .milliseconds(1)
    #expect(chip.nextCheck == .seconds(60) + .milliseconds(5))
    #expect(chip.resume(at: .seconds(60) + .milliseconds(7)) == nil)
    #expect(chip.resume(at: .seconds(60) + .milliseconds(8)) != nil)
  }

  @Test("without the model (the default) a listing answers at once")
  func defaultIsInstant() {
    var chip = PN532Chip()
    #expect(chip.rfTiming == nil)
    #expect(chip.handle(boundedRetries) == .response([]))
    #expect(chip.handle(listA, at: .zero) == .response([0x00]))
  }

  @Test("at 115200 baud a byte takes 10 bit times, and bytes queue behind those on the line")
  func lineAtBaudRate() {
    var line = UARTLine(baudRate: 115_200)
    #expect(line.byteTime == .nanoseconds(86_805))
    let first = line.send(6, at: .zero)
    #expect(first.count == 6)
    #expect(first.first == .nanoseconds(86_805))
    #expect(first.last == .nanoseconds(6 * 86_805))
    // Sent while the first six are still on the line: after them.
    let second = line.send(2, at: .nanoseconds(100_000))
    #expect(second == [.nanoseconds(7 * 86_805), .nanoseconds(8 * 86_805)])
    // Sent on an idle line: from then.
    #expect(line.send(1, at: .seconds(1)) == [.seconds(1) + .nanoseconds(86_805)])
  }

  @Test("through the pseudo-terminal, an answer is never sooner than its bytes at 115200 baud")
  func answerIsPaced() throws {
    let emulator = try PN532Emulator(timing: .slotFaithful())
    defer { emulator.shutdown() }
    let path = try #require(emulator.path)
    let client = try #require(TimedSerialClient(path: path))
    let command = HSUFrame.information([0x02], tfi: HSUFrame.hostToChip)
    let expected =
      HSUFrame.ack + HSUFrame.information([0x03, 0x32, 0x01, 0x06, 0x07], tfi: HSUFrame.chipToHost)
    let (received, elapsed) = client.exchange(command, expecting: expected.count)
    #expect(received == expected)
    // The command in, then the ACK and the response out, 10 bits a byte.
    let onTheLine = UARTLine(baudRate: 115_200).byteTime * (command.count + expected.count)
    #expect(elapsed >= onTheLine, "\(elapsed) for \(command.count + expected.count) bytes")
  }

  @Test("through the pseudo-terminal, a listing with no tag takes at least its attempts")
  func emptyListingThroughTheLine() throws {
    let emulator = try PN532Emulator(timing: .slotFaithful())
    defer { emulator.shutdown() }
    let path = try #require(emulator.path)
    let client = try #require(TimedSerialClient(path: path))
    let configured = HSUFrame.ack + HSUFrame.information([0x33], tfi: HSUFrame.chipToHost)
    let retries = client.exchange(
      HSUFrame.information(boundedRetries, tfi: HSUFrame.hostToChip), expecting: configured.count)
    #expect(retries.received == configured)
    let noTarget = HSUFrame.ack + HSUFrame.information([0x4B, 0x00], tfi: HSUFrame.chipToHost)
    let (received, elapsed) = client.exchange(
      HSUFrame.information(listA, tfi: HSUFrame.hostToChip), expecting: noTarget.count)
    #expect(received == noTarget)
    let rf = try #require(PN532Chip.RFTiming().emptyListing(retries: 0x02))
    #expect(elapsed >= rf, "\(elapsed), the model's three attempts take \(rf)")
  }
}

/// A client on the emulator's serial device that times an exchange.
private final class TimedSerialClient {
  let fd: Int32

  init?(path: String) {
    fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    if fd < 0 { return nil }
  }

  deinit { close(fd) }

  /// Sends `command` and reads until `count` bytes came (or 2 s passed): what came, and the
  /// time from before the write to the last byte read.
  func exchange(_ command: [UInt8], expecting count: Int) -> (received: [UInt8], elapsed: Duration) {
    let start = MonotonicInstant.now()
    _ = command.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 256)
    while received.count < count, MonotonicInstant.now() - start < .seconds(2) {
      var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 20) > 0 else { continue }
      let got = read(fd, &buffer, min(buffer.count, count - received.count))
      if got <= 0 { break }
      received += buffer[0..<got]
    }
    return (received, MonotonicInstant.now() - start)
  }
}
