import Glibc
import Testing

@testable import PN532Emulator

/// A client on the emulator's serial device, as libnfc would open it.
private final class SerialClient {
  let fd: Int32

  init?(path: String) {
    fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    if fd < 0 { return nil }
  }

  deinit { close(fd) }

  func send(_ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  }

  /// Reads until `count` bytes arrived or `milliseconds` passed.
  func receive(_ count: Int, within milliseconds: Int32 = 1000) -> [UInt8] {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 256)
    var remaining = milliseconds
    while received.count < count, remaining > 0 {
      var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 20) > 0 else {
        remaining -= 20
        continue
      }
      let got = read(fd, &buffer, min(buffer.count, count - received.count))
      if got <= 0 { break }
      received += buffer[0..<got]
    }
    return received
  }
}

private func temporaryDirectory() -> String {
  var template = Array("/tmp/pn532emu.XXXXXX".utf8CString)
  let made = mkdtemp(&template)
  #expect(made != nil)
  return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

@Suite("PN532 emulator on a pseudo-terminal")
struct PN532EmulatorTests {
  @Test("a command frame gets an ACK, then the response, and is counted")
  func answersFrames() throws {
    let directory = temporaryDirectory()
    let emulator = try PN532Emulator(linkPath: directory + "/tty")
    defer {
      emulator.shutdown()
      rmdir(directory)
    }
    let client = try #require(SerialClient(path: directory + "/tty"))
    client.send(HSUFrame.information([0x02], tfi: HSUFrame.hostToChip))
    let expected =
      HSUFrame.ack + HSUFrame.information([0x03, 0x32, 0x01, 0x06, 0x07], tfi: HSUFrame.chipToHost)
    #expect(client.receive(expected.count) == expected)
    #expect(emulator.count(of: .getFirmwareVersion) == 1)
  }

  @Test("a NACK gets the last response again")
  func nackRepeats() throws {
    let emulator = try PN532Emulator()
    let path = try #require(emulator.path)
    let client = try #require(SerialClient(path: path))
    client.send(HSUFrame.information([0x02], tfi: HSUFrame.hostToChip))
    let response = HSUFrame.information([0x03, 0x32, 0x01, 0x06, 0x07], tfi: HSUFrame.chipToHost)
    #expect(client.receive(HSUFrame.ack.count + response.count).count == HSUFrame.ack.count + response.count)
    client.send(HSUFrame.nack)
    #expect(client.receive(response.count) == response)
  }

  @Test("a silent emulator counts commands but answers nothing until revived")
  func silence() throws {
    let emulator = try PN532Emulator()
    let path = try #require(emulator.path)
    let client = try #require(SerialClient(path: path))
    emulator.goSilent()
    client.send(HSUFrame.information([0x02], tfi: HSUFrame.hostToChip))
    #expect(client.receive(1, within: 200).isEmpty)
    #expect(emulator.count(of: .getFirmwareVersion) == 1)
    emulator.revive()
    client.send(HSUFrame.information([0x02], tfi: HSUFrame.hostToChip))
    #expect(client.receive(HSUFrame.ack.count) == HSUFrame.ack)
  }

  @Test("kill hangs up the client and removes the link; restart brings a new device behind it")
  func killAndRestart() throws {
    let directory = temporaryDirectory()
    let link = directory + "/tty"
    let emulator = try PN532Emulator(linkPath: link)
    defer {
      emulator.shutdown()
      rmdir(directory)
    }
    let first = try #require(emulator.ptyPath)
    let client = try #require(SerialClient(path: link))
    emulator.kill()
    #expect(emulator.ptyPath == nil)
    #expect(access(link, F_OK) != 0)
    var byte: UInt8 = 0
    #expect(read(client.fd, &byte, 1) <= 0)

    try emulator.restart()
    let second = try #require(emulator.ptyPath)
    #expect(access(link, F_OK) == 0)
    let again = try #require(SerialClient(path: link))
    again.send(HSUFrame.information([0x02], tfi: HSUFrame.hostToChip))
    #expect(again.receive(HSUFrame.ack.count) == HSUFrame.ack)
    _ = (first, second)
  }

  @Test("a listing that waits for a tag is ACKed at once and answered when a tag is laid down")
  func waitingListingOverTheLine() throws {
    let emulator = try PN532Emulator()
    let path = try #require(emulator.path)
    let client = try #require(SerialClient(path: path))
    client.send(HSUFrame.information([0x4A, 0x01, 0x00], tfi: HSUFrame.hostToChip))
    #expect(client.receive(HSUFrame.ack.count) == HSUFrame.ack)
    #expect(client.receive(1, within: 200).isEmpty, "no tag, no answer")
    emulator.present(uid: [0xDE, 0xAD, 0xBE, 0xEF])
    let listing = HSUFrame.information(
      [0x4B, 0x01, 0x01, 0x00, 0x04, 0x08, 0x04, 0xDE, 0xAD, 0xBE, 0xEF], tfi: HSUFrame.chipToHost)
    #expect(client.receive(listing.count) == listing)
  }

  @Test("the host's ACK aborts a waiting listing: a tag laid down afterwards brings no answer")
  func ackAbortsOverTheLine() throws {
    let emulator = try PN532Emulator()
    let path = try #require(emulator.path)
    let client = try #require(SerialClient(path: path))
    client.send(HSUFrame.information([0x4A, 0x01, 0x00], tfi: HSUFrame.hostToChip))
    #expect(client.receive(HSUFrame.ack.count) == HSUFrame.ack)
    client.send(HSUFrame.ack)
    #expect(client.receive(1, within: 100).isEmpty)
    #expect(emulator.acksReceived == 1)
    emulator.present(uid: [0xDE, 0xAD, 0xBE, 0xEF])
    #expect(client.receive(1, within: 200).isEmpty)
  }

  @Test("InAutoPoll is answered at a round boundary after the tag comes")
  func autoPollOverTheLine() throws {
    let emulator = try PN532Emulator()
    let path = try #require(emulator.path)
    let client = try #require(SerialClient(path: path))
    client.send(HSUFrame.information([0x60, 0xFF, 0x01, 0x00], tfi: HSUFrame.hostToChip))
    #expect(client.receive(HSUFrame.ack.count) == HSUFrame.ack)
    #expect(client.receive(1, within: 400).isEmpty, "endless polling, nothing in the field")
    emulator.present(uid: [0xDE, 0xAD, 0xBE, 0xEF])
    let found = HSUFrame.information(
      [0x61, 0x01, 0x00, 0x09, 0x01, 0x00, 0x04, 0x08, 0x04, 0xDE, 0xAD, 0xBE, 0xEF], tfi: HSUFrame.chipToHost
    )
    #expect(client.receive(found.count, within: 2000) == found)
  }
}
