import PuckCore
import Testing

/// `alarm.add` on the wire: relative dates travel as words and are resolved by the daemon.
@Suite struct ControlWireTests {
  private let time = WallTime(hour: 6, minute: 30)

  private func roundTrip(_ recurrence: DraftRecurrence) throws -> (line: String, decoded: ControlRequest) {
    let line = ControlWire.encode(ControlRequest(adding: AlarmDraft(time: time, recurrence: recurrence)))
    return (String(decoding: line, as: UTF8.self), try ControlWire.decode(line))
  }

  @Test func relativeDatesTravelAsWords() throws {
    let today = try roundTrip(.today)
    #expect(today.line.contains(#""date":"today""#))
    #expect(today.decoded == ControlRequest(adding: AlarmDraft(time: time, recurrence: .today)))
    let tomorrow = try roundTrip(.tomorrow)
    #expect(tomorrow.line.contains(#""date":"tomorrow""#))
    #expect(tomorrow.decoded == ControlRequest(adding: AlarmDraft(time: time, recurrence: .tomorrow)))
    let next = try roundTrip(.next)
    #expect(!next.line.contains("date") && !next.line.contains("days"))
    #expect(next.decoded == ControlRequest(adding: AlarmDraft(time: time, recurrence: .next)))
  }

  @Test func absoluteDatesKeepTheirProtocol1Form() throws {
    let date = LocalDate(year: 2026, month: 12, day: 24)
    let sent = try roundTrip(.once(date))
    #expect(sent.line.contains(#""date":"2026-12-24""#))
    // What an older puckctl sends.
    let old =
      #"{"v":1,"command":"alarm.add","time":"06:30","date":"2026-12-24","label":"","requiresPuck":true}"#
    #expect(
      try ControlWire.decode(Array(old.utf8))
        == ControlRequest(adding: AlarmDraft(time: time, recurrence: .once(date))))
    let bad = #"{"v":1,"command":"alarm.add","time":"06:30","date":"someday"}"#
    #expect(throws: ControlFailure.self) { try ControlWire.decode(Array(bad.utf8)) }
  }

  @Test func theDaemonResolvesInItsZone() throws {
    // 2026-12-03 10:00 UTC: 2026-12-02 23:00 in Pago Pago (UTC-11).
    let zone = try ZoneFixtures.zone("Pacific/Pago_Pago")
    let now = try ZoneFixtures.instant("2026-12-03T10:00:00Z")
    let draftTime = WallTime(hour: 23, minute: 30)
    #expect(
      DraftRecurrence.today.resolved(time: draftTime, now: now, in: zone)
        == .once(LocalDate(year: 2026, month: 12, day: 2)))
    #expect(
      DraftRecurrence.tomorrow.resolved(time: draftTime, now: now, in: zone)
        == .once(LocalDate(year: 2026, month: 12, day: 3)))
    #expect(
      DraftRecurrence.next.resolved(time: draftTime, now: now, in: zone)
        == .once(LocalDate(year: 2026, month: 12, day: 2)))
    #expect(
      DraftRecurrence.next.resolved(time: WallTime(hour: 22, minute: 0), now: now, in: zone)
        == .once(LocalDate(year: 2026, month: 12, day: 3)))
  }
}
