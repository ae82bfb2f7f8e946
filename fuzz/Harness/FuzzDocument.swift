// State files and history lines: the first byte picks the payload type, the rest is the file.
// Any bytes decode or give a DocumentError; a decoded payload re-encodes and decodes to itself.

func fuzzDocument(_ data: UnsafeBufferPointer<UInt8>) {
  guard let selector = data.first else { return }
  let bytes = Array(data.dropFirst())
  switch selector % 4 {
  case 0: roundTrip(AlarmBook.self, bytes)
  case 1: roundTrip(EnforcementRecord.self, bytes)
  case 2: roundTrip(Pairing.self, bytes)
  default: roundTrip(HistoryEntry.self, bytes)
  }
}

private func roundTrip<Payload: VersionedPayload & Equatable>(_ type: Payload.Type, _ bytes: [UInt8]) {
  let payload: Payload
  do {
    payload = try DocumentCodec.decode(type, from: bytes)
  } catch {
    _ = error.description
    return
  }
  for pretty in [false, true] {
    do {
      let encoded = try DocumentCodec.encode(payload, pretty: pretty)
      let again = try DocumentCodec.decode(type, from: encoded)
      fuzzCheck(again == payload, "\(type) changed in a round trip: \(payload) became \(again)")
    } catch {
      // Finding 3 in fuzz/README.md: an instant in year 0000 or 9999 with an offset that moves
      // it out of those years is accepted but written in a form that does not read back.
      let known = "\(error)".contains("is not an ISO 8601 instant")
      fuzzCheck(
        known && !strictZoneChecks, "\(type) decoded but its re-encoding does not read back: \(error)")
    }
  }
}
