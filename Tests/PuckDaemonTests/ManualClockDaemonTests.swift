import Foundation
import PuckCore
import PuckDaemon
import PuckDevices
import PuckStorage
import PuckSystem
import Testing

/// The whole daemon in-process on a manual clock (`ManualDock`): every timer, every step of the
/// wall clock, every zone change and DST night happens in microseconds, and each test asserts
/// what the daemon did: guards, rings (the recorded audio), reader polling, history.
@Suite("puckd on a manual clock", .serialized)
struct ManualClockDaemonTests {
  private static let quickRetries = """
    [enforcement]
    retry_delay = 5min
    ring_timeout = 2min
    """

  @Test("an alarm rings at its second, not before; the reader polls only then; the puck ends it")
  func ringsOnTimeAndScanEndsIt() throws {
    // The hour-before lock off: with it the reader polls in that hour too (LockWindowTests).
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z", config: "[enforcement]\nlock_before = 0s\n")
    try dock.start()
    try dock.addAlarm(6, 30)
    #expect(dock.bench.reader?.isPolling == false, "the RF field is off while nothing is open")

    try dock.advance(.seconds(30 * 60 - 1))
    #expect(try dock.guards().isEmpty, "nothing rings a second early")
    #expect(dock.bench.audio?.starts == 0)

    try dock.advance(.seconds(1))
    let open = try dock.guards()
    #expect(open.count == 1 && open.first?.ringing == true)
    #expect(dock.bench.audio?.isPlaying == true)
    #expect(dock.bench.reader?.isPolling == true, "the reader polls while a wake-up is open")

    dock.bench.reader?.present(dock.puck)
    try dock.settle()
    #expect(try dock.guards().isEmpty)
    #expect(dock.bench.audio?.isPlaying == false)
    #expect(dock.bench.reader?.isPolling == false)
    let entry = try #require(try dock.history().first)
    #expect(entry.outcome == .woke)
    #expect(entry.closedAt == dock.now)
  }

  @Test(
    "a stop only silences, for half the ring heard; an unanswered ring times out as a bypass and the retry rings after retry_delay"
  )
  func bypassRetryAndRingTimeout() throws {
    let dock = try ManualDock.ringing(config: Self.quickRetries)
    #expect(try dock.guards().first?.ringing == true)

    #expect(try dock.stopOnceHeard(.seconds(40)).ok == true)
    var open = try #require(try dock.guards().first)
    #expect(!open.ringing && open.bypassCount == 1)
    #expect(open.retryAt == dock.now.adding(seconds: 20), "half the 40 s heard, below retry_delay")
    #expect(dock.bench.audio?.isPlaying == false)

    try dock.advance(.seconds(19))
    #expect(try dock.guards().first?.ringing == false)
    try dock.advance(.seconds(1))
    #expect(try dock.guards().first?.ringing == true, "the retry rings again")
    #expect(dock.bench.audio?.starts == 2)

    // Nobody stops it: after ring_timeout it counts as a bypass and re-arms.
    try dock.advance(.seconds(120))
    open = try #require(try dock.guards().first)
    #expect(!open.ringing && open.bypassCount == 2)
    #expect(open.retryAt == dock.now.adding(seconds: 300))
    #expect(dock.bench.audio?.isPlaying == false)
  }

  @Test("a wrong tag and a tag that was already lying there leave the wake-up open")
  func wrongAndStaleTags() throws {
    let dock = try ManualDock.ringing()
    dock.bench.reader?.present(dock.stranger)
    dock.bench.reader?.present(dock.puck, fresh: false)
    try dock.settle()
    #expect(try dock.guards().count == 1, "neither a stranger nor a stale tag ends it")
    #expect(dock.bench.audio?.isPlaying == true)
    dock.bench.reader?.present(dock.puck)
    try dock.settle()
    #expect(try dock.guards().isEmpty)
  }

  @Test("a wrong tag while the ring is stopped is told on the speaker too; during the ring nothing is added")
  func wrongTagIsToldOnTheSpeaker() throws {
    let dock = try ManualDock.ringing()
    let audio = try #require(dock.bench.audio)
    let wrongPuck = try #require(AlarmTone.cue(.wrongPuck))
    dock.bench.reader?.present(dock.stranger)
    try dock.settle()
    #expect(audio.sounds.count == 1, "the ring goes on, no cue over it")
    #expect(try dock.stopOnceHeard().ok == true)
    dock.bench.reader?.present(dock.stranger)
    try dock.settle()
    #expect(audio.sounds.last == wrongPuck && audio.isPlaying, "three beeps: not the paired tag")
    try dock.advance(wrongPuck.duration)
    #expect(!audio.isPlaying)
    #expect(try dock.guards().count == 1, "the wake-up stays open")
  }

  @Test("a restart resumes an open wake-up; a late alarm within the grace rings, one beyond is missed")
  func restartResumesAndCatchesUp() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 10, on: LocalDate(year: 2026, month: 3, day: 2))
    try dock.addAlarm(6, 50, on: LocalDate(year: 2026, month: 3, day: 2))
    dock.stop()

    // Down from 06:00 to 07:05: 06:10 is 55 min late (beyond the 30 min grace), 06:50 is 15.
    dock.clock.advance(by: .seconds(65 * 60))
    try dock.start()
    let open = try dock.guards()
    #expect(open.count == 1)
    #expect(open.first?.description.contains("06:50") == true)
    #expect(open.first?.ringing == true)
    let missed = try dock.history().filter { $0.outcome == .missed }
    #expect(
      try missed.map(\.occurrence.scheduledAt) == [
        Instant(unixSeconds: ManualDock.unixSeconds("2026-03-02T06:10:00Z"))
      ])

    // Killed mid-ring (no clean stop is needed: the guard is on disk) and back a minute later.
    dock.stop()
    dock.clock.advance(by: .seconds(60))
    try dock.start()
    #expect(try dock.guards().first?.ringing == true, "the open wake-up rings again after a restart")
    #expect(dock.bench.audio?.isPlaying == true)
  }

  @Test("the wall clock stepped forward past an alarm rings it once; stepped back, it does not ring again")
  func clockStepsBothWays() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 30, on: LocalDate(year: 2026, month: 3, day: 2))
    try dock.stepWall(by: .seconds(40 * 60))
    #expect(try dock.guards().first?.ringing == true, "10 min late after the step: within the grace")
    dock.bench.reader?.present(dock.puck)
    try dock.settle()
    #expect(try dock.guards().isEmpty)

    try dock.stepWall(by: .seconds(-20 * 60))
    try dock.advance(.seconds(15 * 60))
    #expect(try dock.guards().isEmpty, "06:30 is re-lived without ringing twice")
    #expect(dock.bench.audio?.starts == 1)
    #expect(try dock.history().filter { $0.outcome == .woke }.count == 1)
  }

  @Test("a retry keeps its real-time delay when the wall clock steps either way")
  func retryKeepsRealTimeDelay() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z", config: Self.quickRetries)
    try dock.start()
    try dock.addAlarm(6, 1, on: LocalDate(year: 2026, month: 3, day: 2))
    try dock.advance(.seconds(60))
    // Nobody stops the ring: its timeout is the bypass, and the retry comes retry_delay later.
    try dock.advance(.seconds(120))

    try dock.stepWall(by: .seconds(3600))
    var open = try #require(try dock.guards().first)
    #expect(!open.ringing, "a step forward does not make the retry due")
    #expect(open.retryAt == dock.now.adding(seconds: 300))

    try dock.advance(.seconds(120))
    try dock.stepWall(by: .seconds(-2 * 3600))
    open = try #require(try dock.guards().first)
    #expect(open.retryAt == dock.now.adding(seconds: 180), "a step back does not delay it either")
    try dock.advance(.seconds(180))
    #expect(try dock.guards().first?.ringing == true)
  }

  @Test("a new /etc/localtime moves the alarms to the new zone's wall time at once")
  func zoneChange() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z", zone: "UTC")
    try dock.start()
    try dock.addAlarm(8, 0, days: Set(Weekday.allCases))
    #expect(
      try dock.status().nextAlarmAt
        == Instant(unixSeconds: ManualDock.unixSeconds("2026-03-02T08:00:00Z")))

    try dock.setZone("Europe/Berlin")
    try dock.settle()
    let status = try dock.status()
    #expect(status.zone == "Europe/Berlin")
    #expect(try status.nextAlarmAt == Instant(unixSeconds: ManualDock.unixSeconds("2026-03-02T07:00:00Z")))
    try dock.advance(to: "2026-03-02T07:00:00Z")
    #expect(try dock.guards().first?.ringing == true, "08:00 Berlin rings at 07:00 UTC")
  }

  @Test("DST nights in Berlin: 02:30 in the spring gap rings once at 03:30; in the autumn fold, once")
  func dstNights() throws {
    let dock = try ManualDock(at: "2026-03-28T22:00:00Z", zone: "Europe/Berlin")
    try dock.start()
    try dock.addAlarm(2, 30, days: Set(Weekday.allCases))
    // 2026-03-29: 02:00 CET jumps to 03:00 CEST; 02:30 is read with the offset before the gap.
    try dock.advance(to: "2026-03-29T01:29:59Z")
    #expect(try dock.guards().isEmpty)
    try dock.advance(.seconds(1))
    #expect(try dock.guards().first?.ringing == true, "rings at 03:30 CEST")
    dock.bench.reader?.present(dock.puck)
    try dock.settle()
    try dock.advance(to: "2026-03-30T00:29:59Z")
    #expect(try dock.guards().isEmpty, "once on the gap night")
    try dock.advance(.seconds(1))
    #expect(try dock.guards().first?.ringing == true, "the next day at 02:30 CEST")
    dock.bench.reader?.present(dock.puck)
    try dock.settle()

    // 2026-10-25: 03:00 CEST falls back to 02:00 CET; 02:30 happens twice and rings once.
    dock.stop()
    dock.clock.setWall(to: .seconds(try ManualDock.unixSeconds("2026-10-24T23:00:00Z")))
    try dock.start()
    // Everything between March and October was missed while it was down.
    _ = try dock.request("acknowledge")
    let startsBefore = dock.bench.audio?.starts ?? 0
    try dock.advance(to: "2026-10-25T00:30:00Z")
    #expect(try dock.guards().first?.ringing == true, "the first 02:30 (CEST)")
    dock.bench.reader?.present(dock.puck)
    try dock.settle()
    try dock.advance(to: "2026-10-25T01:45:00Z")
    #expect(try dock.guards().isEmpty, "the second 02:30 (CET) does not ring again")
    #expect(dock.bench.audio?.starts == startsBefore + 1)
  }

  @Test("a board without an RTC boots in 1970: nothing rings or is missed until the clock is set")
  func bootsIn1970() throws {
    let dock = try ManualDock(at: "2026-03-02T06:00:00Z")
    try dock.start()
    try dock.addAlarm(6, 30, days: Set(Weekday.allCases))
    dock.stop()

    dock.clock.setWall(to: .seconds(10))
    dock.clock.setSynchronized(false)
    try dock.start()
    try dock.advance(.seconds(600))
    #expect(try dock.guards().isEmpty)
    #expect(try dock.history().isEmpty, "no flood of missed alarms from 1970")

    // NTP sets the clock to 06:10, a little after the last run.
    dock.clock.setWall(to: .seconds(try ManualDock.unixSeconds("2026-03-02T06:10:00Z")))
    dock.clock.setSynchronized(true)
    try dock.settle()
    #expect(try dock.guards().isEmpty)
    try dock.advance(.seconds(20 * 60))
    #expect(try dock.guards().first?.ringing == true, "06:30 rings on time")
    #expect(try dock.history().isEmpty)
    #expect(dock.bench.audio?.starts == 1)
  }

  @Test("pairing through the reader: the same tag twice pairs it; no tag within the timeout pairs nothing")
  func pairingThroughTheReader() throws {
    let dock = try ManualDock(paired: false)
    try dock.start()
    let pairing = try dock.open("pair")
    #expect(try pairing.replies().first?.progress != nil)
    #expect(dock.bench.reader?.isPolling == true)
    let tag = try TagUID(parsing: "04:11:22:33:44:55:66")
    dock.bench.reader?.present(tag)
    #expect(try pairing.replies().first?.progress?.contains("again") == true)
    dock.bench.reader?.present(tag)
    #expect(try pairing.replies().last?.ok == true)
    #expect(try dock.status().pairedTag == tag.masked)
    #expect(dock.bench.reader?.isPolling == false)

    let second = try dock.open("pair")
    _ = try second.replies()
    try dock.advance(.seconds(30))
    let reply = try #require(try second.replies().last)
    #expect(reply.ok == false)
    #expect(try dock.status().pairedTag == tag.masked, "the earlier pairing stays")
  }

  @Test("a stop from the socket does not send the next ring back to the bottom of its ramp")
  func theNextRingStartsWhereTheStoppedOneWas() throws {
    let dock = try ManualDock.ringing(config: "[audio]\nstart_volume = 30%\nramp = 60s\n")
    #expect(try dock.stopOnceHeard(.seconds(40)).ok == true)
    try dock.advance(.seconds(20))
    #expect(try dock.guards().first?.ringing == true, "the retry, half the 40 s heard later")
    let volumes = (dock.bench.audio?.calls ?? []).compactMap { call -> Double? in
      if case .start(let volume, _) = call { volume } else { nil }
    }
    // 30 % + 40/60 of the way to full: 76 %.
    #expect(volumes == [0.30, 0.76], "\(volumes)")
  }

  @Test("adaptive bypass: each retry comes sooner, down to the floor, and starts louder, up to full volume")
  func adaptiveBypass() throws {
    let dock = try ManualDock.ringing(
      config: """
        [audio]
        start_volume = 30%
        volume_step = 25%
        [enforcement]
        retry_delay = 5min
        retry_shrink = 2min
        retry_floor = 1min
        ring_timeout = 1min
        """)
    var delays: [Int64] = []
    for _ in 0..<4 {
      // Nobody stops the ring: its timeout is the bypass.
      try dock.advance(.seconds(60))
      let retryAt = try #require(try dock.guards().first?.retryAt)
      delays.append(retryAt.seconds(since: dock.now))
      try dock.advance(.seconds(retryAt.seconds(since: dock.now)))
      #expect(try dock.guards().first?.ringing == true)
    }
    #expect(delays == [300, 180, 60, 60], "status shows each retry's time")
    let volumes = (dock.bench.audio?.calls ?? []).compactMap { call -> Double? in
      if case .start(let volume, _) = call { volume } else { nil }
    }
    #expect(volumes == [0.30, 0.55, 0.80, 1.0, 1.0])
  }

  @Test("the reader is opened with [reader] device and poll_interval as configured")
  func readerGetsItsCadence() throws {
    let dock = try ManualDock(config: "[reader]\ndevice = pn532_uart:/dev/ttyS9\npoll_interval = 40ms\n")
    try dock.start()
    #expect(dock.bench.reader?.connstring == "pn532_uart:/dev/ttyS9")
    #expect(dock.bench.reader?.pollInterval == .milliseconds(40))
    let defaults = try ManualDock()
    try defaults.start()
    #expect(defaults.bench.reader?.pollInterval == ReaderSettings.defaultPollInterval)
  }
}
