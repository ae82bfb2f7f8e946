import Foundation
import PuckCore
import Testing

/// `status --json` keeps its keys, and `reasonCodes` carries each reason as a `code` plus its
/// parameters, parallel to the `reasons` strings.
@Suite struct StatusJSONTests {
  private let status = DockStatus(
    protected: false,
    reasons: [
      ProtectionReason.readerFault(state: .fault, detail: "gone").text, ProtectionReason.noTagPaired.text,
    ],
    simulated: false, nextAlarm: "06:30 alarm", nextAlarmAt: Instant(unixSeconds: 1_800_000_000), guards: [],
    pairedTag: "…:3f:9a", devices: [DeviceHealth(.reader, state: .fault, detail: "gone")],
    clockSynchronized: true,
    problems: [], missed: [], zone: "Europe/Berlin", missedTotal: 0,
    reasonCodes: [.readerFault(state: .fault, detail: "gone"), .noTagPaired])

  private func object(_ line: [UInt8]) throws -> [String: Any] {
    let reply = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
    return try #require(reply?["status"] as? [String: Any])
  }

  @Test func theKeysStayAndCodesAreAdded() throws {
    let json = try object(ControlWire.encode(ControlReply(ok: true, status: status)))
    #expect(
      Set(json.keys) == [
        "protected", "reasons", "reasonCodes", "simulated", "nextAlarm", "nextAlarmAt", "guards", "pairedTag",
        "devices",
        "clockSynchronized", "problems", "missed", "zone", "missedTotal",
      ])
    #expect(json["reasons"] as? [String] == ["reader: gone", "no tag paired — run: sudo puckctl pair"])
    let codes = try #require(json["reasonCodes"] as? [[String: Any]])
    #expect(codes.count == 2)
    #expect(codes[0]["code"] as? String == "reader-fault")
    #expect(codes[0]["state"] as? String == "fault")
    #expect(codes[0]["detail"] as? String == "gone")
    #expect(codes[1].keys.sorted() == ["code"])
    #expect(codes[1]["code"] as? String == "no-tag-paired")
    let device = try #require((json["devices"] as? [[String: Any]])?.first)
    #expect(device["name"] as? String == "reader")
  }

  @Test func everyReasonRoundTrips() throws {
    let all: [ProtectionReason] = [
      .stateFilesUnreadable(files: [.init(file: "alarms.json", error: "EIO")]),
      .historyNotRecorded(count: 3, error: "ENOSPC"), .simulated,
      .readerFault(state: .absent, detail: "not started"),
      .pairingUnreadable(problem: "refused"), .noTagPaired, .nothingCanRing(audioDetail: "no device"),
      .noEnabledAlarm, .noAlarmAhead, .nextAlarmWithoutPuck(alarm: 4), .clockNotSynchronized,
      .problemsNeedAttention(count: 2), .timerNotArmed(detail: "not armed"), .checkFailed(parts: ["reader"]),
    ]
    let data = try JSONEncoder().encode(all)
    #expect(try JSONDecoder().decode([ProtectionReason].self, from: data) == all)
    #expect(Set(all.map(\.code)).count == all.count, "codes are distinct")
  }

  @Test func anUnknownCodeStillDecodesAndAnOldReplyHasNone() throws {
    let newer = try JSONDecoder().decode(
      ProtectionReason.self, from: Data(#"{"code":"remote-reader-lost","x":1}"#.utf8))
    #expect(newer == .unrecognized(code: "remote-reader-lost"))
    var old = status
    old.reasonCodes = nil
    let reply = try ControlWire.decodeReply(ControlWire.encode(ControlReply(ok: true, status: old)))
    #expect(reply.status?.reasonCodes == nil)
    #expect(reply.status?.reasons == old.reasons)
  }

  @Test func linesComeFromTheCodesAndFallBackToTheDaemonsText() {
    var fromCodes = status
    fromCodes.reasons = ["old wording", "older wording"]
    #expect(fromCodes.reasonLines == ["reader: gone", "no tag paired — run: sudo puckctl pair"])
    var newer = status
    newer.reasonCodes = [.unrecognized(code: "remote-reader-lost"), .noTagPaired]
    newer.reasons = ["remote reader lost", "no tag paired — run: sudo puckctl pair"]
    #expect(newer.reasonLines == newer.reasons)
    var old = status
    old.reasonCodes = nil
    #expect(old.reasonLines == status.reasons)
  }
}
