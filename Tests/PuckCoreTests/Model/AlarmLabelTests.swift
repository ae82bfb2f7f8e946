import Foundation
import PuckCore
import Testing

/// Labels already on disk beyond the limits (a hand-edited alarms.json, history from before the
/// limits) are cut to fit when read, never refused: the alarm must still ring.
@Suite struct AlarmLabelTests {
  static let heavy = String(repeating: "a" + String(repeating: "\u{0301}", count: 200), count: 64)

  @Test func fittingLabelKeepsAnAcceptableLabel() {
    #expect(Alarm.fittingLabel("work") == "work")
    #expect(Alarm.fittingLabel(String(repeating: "😴", count: 64)) == String(repeating: "😴", count: 64))
  }

  @Test func fittingLabelCutsAtWholeCharactersWithinBothLimits() {
    let long = String(repeating: "x", count: 100)
    #expect(Alarm.fittingLabel(long) == String(repeating: "x", count: 64))
    // 60 characters of 5 bytes each: the byte limit binds first, at 51 whole characters.
    let heavyish = String(repeating: "a\u{0301}\u{0301}", count: 60)
    let fitted = Alarm.fittingLabel(heavyish)
    #expect(fitted == String(repeating: "a\u{0301}\u{0301}", count: 51))
    #expect(Alarm.isAcceptableLabel(fitted))
  }

  @Test func aCharacterHeavierThanTheByteLimitIsDropped() {
    #expect(Alarm.fittingLabel(Self.heavy) == "")
    let mixed = "gym " + Self.heavy
    #expect(Alarm.fittingLabel(mixed) == "gym ")
  }

  @Test func controlCharactersBecomeSpaces() {
    #expect(Alarm.fittingLabel("wake\nup\u{07}now") == "wake up now")
  }

  @Test func anAlarmOnDiskWithAnOversizedLabelDecodesWithItCut() throws {
    let json = #"{"id":3,"time":"06:30","days":["mon"],"label":"\#(Self.heavy)x"}"#
    let alarm = try JSONDecoder().decode(Alarm.self, from: Data(json.utf8))
    #expect(alarm.id == 3)
    #expect(alarm.enabled)
    #expect(Alarm.isAcceptableLabel(alarm.label))
  }

  @Test func anOccurrenceInHistoryWithAnOversizedLabelDecodesWithItCut() throws {
    let json = #"""
      {"alarmID":1,"isOneShot":false,"label":"\#(String(repeating: "z", count: 500))","requiresPuck":true,
      "scheduledAt":"2026-01-05T06:30:00Z","time":"06:30"}
      """#
    let occurrence = try JSONDecoder().decode(AlarmOccurrence.self, from: Data(json.utf8))
    #expect(occurrence.label == String(repeating: "z", count: 64))
    // And it still encodes as before.
    let again = try JSONDecoder().decode(AlarmOccurrence.self, from: JSONEncoder().encode(occurrence))
    #expect(again == occurrence)
  }

  @Test func theBookIsFullAtTheLimit() {
    var book = AlarmBook()
    let draft = AlarmDraft(time: WallTime(hour: 6, minute: 30), recurrence: .weekly([.monday]))
    for _ in 1..<AlarmBook.maximumAlarms { _ = book.add(draft, now: Instant(unixSeconds: 0), in: .utc) }
    #expect(!book.isFull)
    _ = book.add(draft, now: Instant(unixSeconds: 0), in: .utc)
    #expect(book.isFull)
    #expect(AlarmBook.maximumAlarms == 100)
  }
}
