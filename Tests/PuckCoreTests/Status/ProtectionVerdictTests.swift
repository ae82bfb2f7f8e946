import PuckCore
import Testing

/// The verdict over a snapshot: each reason appears exactly when its condition holds, and a
/// snapshot with nothing wrong is protected.
@Suite struct ProtectionVerdictTests {
  /// A dock with nothing wrong: a working reader and audio, no buzzer (absent is fine), a paired
  /// tag, a puck alarm ahead, a synchronised clock.
  private static let allGood = StatusSnapshot(
    devices: [
      DeviceHealth(.reader, state: .ok, detail: "PN532 v1.6 on pn532_uart:/dev/serial0"),
      DeviceHealth(.audio, state: .ok, detail: "idle on default"),
      DeviceHealth(.buzzer, state: .absent, detail: "not configured (no [buzzer] section)"),
      DeviceHealth(.button, state: .absent, detail: "not configured (no [button] section)"),
      DeviceHealth(.led, state: .absent, detail: "not configured (no [led] section)"),
    ],
    pairedTag: "…:3f:9a", hasEnabledAlarm: true,
    nextAlarm: .init(
      id: 1, time: WallTime(hour: 6, minute: 30), recurrence: .weekly(Set(Weekday.allCases)),
      requiresPuck: true),
    clockSynchronized: true)

  /// The reasons for `allGood` changed by `change`.
  private func reasons(_ change: (inout StatusSnapshot) -> Void) -> [ProtectionReason] {
    var snapshot = Self.allGood
    change(&snapshot)
    return ProtectionVerdict(snapshot).reasons
  }

  /// Sets `device`'s health in `snapshot`.
  private static func set(
    _ device: DockDevice, _ state: DeviceHealth.State, _ detail: String, in snapshot: inout StatusSnapshot
  ) {
    snapshot.devices = snapshot.devices.map {
      $0.device == device ? DeviceHealth(device, state: state, detail: detail) : $0
    }
  }

  @Test func allGoodIsProtected() {
    let verdict = ProtectionVerdict(Self.allGood)
    #expect(verdict.protected)
    #expect(verdict.reasons.isEmpty)
  }

  @Test func unreadableStateFiles() {
    let files = [
      StatusSnapshot.UnreadableFile(file: "alarms.json", error: "Input/output error"),
      StatusSnapshot.UnreadableFile(file: "guards.json", error: "Is a directory"),
    ]
    let found = reasons { $0.unreadableFiles = files }
    // Held files are also problem lines, so the attention reason comes with them.
    #expect(found == [.stateFilesUnreadable(files: files), .problemsNeedAttention(count: 2)])
    #expect(found.first?.text.contains("alarms.json, guards.json") == true)
  }

  @Test func historyNotRecorded() {
    let found = reasons { $0.unrecordedHistory = .init(count: 2, error: "No space left on device") }
    #expect(
      found == [
        .historyNotRecorded(count: 2, error: "No space left on device"), .problemsNeedAttention(count: 1),
      ])
    #expect(found.first?.text == "2 closed wake-up(s) not yet recorded in history (see Problem lines)")
  }

  @Test func simulatedHidesTheReaderButIsItselfAReason() {
    let found = reasons {
      $0.simulated = true
      Self.set(.reader, .simulated, "scans come from puckctl scan", in: &$0)
    }
    #expect(found == [.simulated])
  }

  @Test func readerFaultOrAbsent() {
    #expect(
      reasons { Self.set(.reader, .fault, "opening pn532_uart:/dev/serial0…", in: &$0) }
        == [.readerFault(state: .fault, detail: "opening pn532_uart:/dev/serial0…")])
    #expect(
      reasons { Self.set(.reader, .absent, "not started", in: &$0) }
        == [.readerFault(state: .absent, detail: "not started")])
    #expect(ProtectionReason.readerFault(state: .fault, detail: "gone").text == "reader: gone")
  }

  @Test func pairingUnreadableTakesThePlaceOfNoTag() {
    let problem = "pairing.json is readable by group or others; refused"
    #expect(
      reasons {
        $0.pairedTag = nil
        $0.pairingProblem = problem
      } == [.pairingUnreadable(problem: problem)])
    #expect(ProtectionReason.pairingUnreadable(problem: problem).text == problem)
  }

  @Test func noTagPaired() {
    #expect(reasons { $0.pairedTag = nil } == [.noTagPaired])
    #expect(ProtectionReason.noTagPaired.text == "no tag paired — run: sudo puckctl pair")
  }

  @Test func nothingCanRingOnlyWhenBothOutputsFail() {
    let found = reasons { Self.set(.audio, .fault, "cannot open 'default': No such device", in: &$0) }
    #expect(found == [.nothingCanRing(audioDetail: "cannot open 'default': No such device")])
    #expect(found.first?.text.hasPrefix("nothing can ring: audio has a fault (cannot open") == true)
    // A working buzzer still wakes someone.
    #expect(
      reasons {
        Self.set(.audio, .fault, "cannot open 'default'", in: &$0)
        Self.set(.buzzer, .ok, "gpiochip0 line 18: off", in: &$0)
      }.isEmpty)
    // A failing buzzer alone is shown in the device list, not a reason.
    #expect(reasons { Self.set(.buzzer, .fault, "cannot drive gpiochip0 line 18", in: &$0) }.isEmpty)
  }

  @Test func noEnabledAlarm() {
    #expect(
      reasons {
        $0.hasEnabledAlarm = false
        $0.nextAlarm = nil
      } == [.noEnabledAlarm])
  }

  @Test func noAlarmAhead() {
    #expect(reasons { $0.nextAlarm = nil } == [.noAlarmAhead])
    #expect(ProtectionReason.noAlarmAhead.text == "no alarm will ring again (one-shots in the past?)")
  }

  @Test func nextAlarmWithoutPuck() {
    #expect(
      reasons {
        $0.nextAlarm = .init(
          id: 7, time: WallTime(hour: 6, minute: 30), recurrence: .weekly(Set(Weekday.allCases)),
          requiresPuck: false)
      } == [.nextAlarmWithoutPuck(alarm: 7)])
    #expect(
      ProtectionReason.nextAlarmWithoutPuck(alarm: 7).text
        == "the next alarm (7) does not require the puck (--no-puck)")
  }

  @Test func clockNotSynchronisedButUnknownIsNoReason() {
    #expect(reasons { $0.clockSynchronized = false } == [.clockNotSynchronized])
    #expect(reasons { $0.clockSynchronized = nil }.isEmpty)
  }

  @Test("only the kernel's copy of the timer counts: a read-back that differs is a reason (R5)")
  func timerNotArmed() {
    #expect(
      reasons { $0.timerProblem = "not armed in the kernel" } == [
        .timerNotArmed(detail: "not armed in the kernel")
      ])
    #expect(
      ProtectionReason.timerNotArmed(detail: "not armed in the kernel").text
        == "alarm timer: not armed in the kernel")
  }

  @Test("a failed pre-flight check is a reason until a check passes, naming the parts")
  func checkFailed() {
    #expect(reasons { $0.failedChecks = ["reader", "audio"] } == [.checkFailed(parts: ["reader", "audio"])])
    #expect(
      ProtectionReason.checkFailed(parts: ["reader", "audio"]).text
        == "the last pre-flight check failed: reader, audio — see 'puckctl check'")
  }

  @Test func problemsNeedAttention() {
    #expect(
      reasons { $0.stateProblems = ["alarms.json was corrupt; kept as alarms.json.corrupt-…"] }
        == [.problemsNeedAttention(count: 1)])
    #expect(
      reasons { $0.configProblem = "config: puckd.conf:3: unknown key 'volume'" } == [
        .problemsNeedAttention(count: 1)
      ])
    #expect(
      reasons { $0.soundProblem = "sound file: missing; the built-in tone will ring instead" }
        == [.problemsNeedAttention(count: 1)])
  }

  @Test func everythingWrongKeepsTheOrderStatusShows() {
    let found = reasons {
      $0.unreadableFiles = [.init(file: "pairing.json", error: "Input/output error")]
      $0.unrecordedHistory = .init(count: 1, error: "EIO")
      Self.set(.reader, .fault, "gone", in: &$0)
      $0.pairedTag = nil
      Self.set(.audio, .fault, "gone", in: &$0)
      $0.timerProblem = "not armed"
      $0.failedChecks = ["clock"]
      $0.nextAlarm = .init(
        id: 3, time: WallTime(hour: 6, minute: 30), recurrence: .weekly(Set(Weekday.allCases)),
        requiresPuck: false)
      $0.clockSynchronized = false
    }
    #expect(
      found.map(\.code) == [
        "state-files-unreadable", "history-not-recorded", "reader-fault", "no-tag-paired", "nothing-can-ring",
        "timer-not-armed", "check-failed", "next-alarm-without-puck", "clock-not-synchronised",
        "problems-need-attention",
      ])
  }

  @Test func problemLinesKeepTheirWording() {
    var snapshot = Self.allGood
    snapshot.stateProblems = ["first"]
    snapshot.unreadableFiles = [.init(file: "alarms.json", error: "Input/output error")]
    snapshot.unrecordedHistory = .init(count: 1, error: "EIO")
    snapshot.configProblem = "config: bad"
    snapshot.soundProblem = "sound file: bad"
    #expect(
      snapshot.problems == [
        "first",
        "alarms.json cannot be read (Input/output error); it is not written over until it can be read again (retried)",
        "history.jsonl cannot be appended to (EIO); 1 entry waits in guards.json and will be recorded when it can (retried)",
        "config: bad", "sound file: bad",
      ])
  }
}
