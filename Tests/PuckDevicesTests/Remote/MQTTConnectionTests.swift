import PuckDevices
import Testing

/// The client IDs the dock and the node connect with (docs/DESIGN.md M11).
@Suite struct MQTTConnectionTests {
  @Test("a client ID is its prefix and 16 hex digits, new at each draw")
  func clientIDsAreRandom() {
    let ids = (0..<1000).map { _ in MQTTConnection.randomClientID(prefix: "puck-reader-kitchen-") }
    #expect(Set(ids).count == ids.count, "a repeated ID in 1,000 draws of 64 bits")
    for id in ids {
      let random = id.dropFirst("puck-reader-kitchen-".utf8.count)
      #expect(id.hasPrefix("puck-reader-kitchen-") && random.utf8.count == 16, "\(id)")
      #expect(random.allSatisfy { "0123456789abcdef".contains($0) }, "\(id)")
    }
    // Every digit position varies: no part of the random part is fixed.
    for position in 0..<16 {
      let digits = Set(ids.map { Array($0.utf8)[20 + position] })
      #expect(digits.count > 8, "digit \(position) took only \(digits.count) values")
    }
  }
}
