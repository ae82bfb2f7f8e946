// Control-socket request lines (and, for puckctl, reply lines): any bytes must decode to a
// command or throw a ControlFailure; a decoded command must survive an encode/decode round trip.

func fuzzControlWire(_ data: UnsafeBufferPointer<UInt8>) {
  if let command = try? ControlWire.decode(data) {
    let line = ControlWire.encode(command)
    let again: ControlRequest
    do {
      again = try ControlWire.decode(line)
    } catch {
      fuzzCheck(
        false, "re-encoded command \(String(decoding: line, as: UTF8.self)) does not decode: \(error)")
      return
    }
    fuzzCheck(again == command, "round trip changed \(command) into \(again)")
  }
  if let reply = try? ControlWire.decodeReply(data) {
    _ = ControlWire.encode(reply)
  }
}
