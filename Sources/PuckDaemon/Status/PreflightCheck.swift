import PuckCore
import PuckStorage
import PuckSystem

/// The pre-flight check (docs/DESIGN.md R5): at start, `[enforcement] check_before` ahead of
/// every alarm and on `puckctl check`, it reads back everything the alarm needs from where it
/// lives: the reader's and the audio device's own answers (asked for now, waited for up to
/// `answerLimit`), the pairing file on disk, the buzzer line, the kernel's clock status and
/// the alarm timer as the kernel holds it. A failure before a coming alarm is made noticeable
/// where someone getting into bed is: the buzzer's `checkFailed` chirp, the LED's flicker, a
/// warning in the log, status and `STATUS=`.
///
/// A failed check is checked again when a device or the pairing changes (`somethingChanged`),
/// quietly, so a reader that comes back clears the warning without anyone asking.
final class PreflightCheck {
  /// A check waiting for the devices' answers.
  private struct Pending {
    let trigger: PreflightReport.Trigger
    /// Clients of `puckctl check` waiting for the report.
    var clients: [ControlServer.Client]
    /// The reader's health-report count when asked; nil when there was no reader to ask.
    let readerAskedAt: Int?
    /// The audio device's check count when asked; nil when no check was started.
    let audioAskedAt: Int?
    /// Re-checks after a change alert only through the LED, never with a chirp.
    var quiet: Bool
  }

  /// How long a device may take to answer before the check counts it as failed.
  static let answerLimit: Duration = .seconds(5)

  private let dock: DockContext
  private let devices: DockDevices
  private let schedule: ScheduleKeeper
  /// Ends the wait for answers (CLOCK_MONOTONIC); made last in `init`, as its handler needs
  /// `self`.
  private var deadline: TimerHandle!
  private var pending: Pending?
  /// The last finished check; nil before the first.
  private(set) var last: PreflightReport?

  init(dock: DockContext, devices: DockDevices, schedule: ScheduleKeeper) throws(SystemError) {
    self.dock = dock
    self.devices = devices
    self.schedule = schedule
    deadline = try dock.loop.timer(.monotonic) { [unowned self] firing in
      if firing == .expired { self.finish() }
    }
  }

  /// Whether the last check failed while an alarm is ahead: what the LED flickers for.
  func alertStanding(alarmAhead: Bool) -> Bool {
    alarmAhead && last?.passed == false
  }

  /// A connection closed: a check waiting for answers lets its client go now, with the
  /// client's descriptors, rather than when the answers are in (up to `answerLimit`).
  func clientClosed(_ client: ControlServer.Client) {
    pending?.clients.removeAll { $0 === client }
  }

  /// Starts a check; `client` (from `puckctl check`) gets the report. A check already waiting
  /// for answers takes the client and the trigger's alert along.
  func run(_ trigger: PreflightReport.Trigger, client: ControlServer.Client? = nil) {
    if pending != nil {
      if let client { pending?.clients.append(client) }
      pending?.quiet = false
      return
    }
    start(trigger, client: client, quiet: false)
  }

  /// A device's health or the pairing changed: a failed check whose failing part now looks
  /// well is run again, quietly, so a reader that came back clears the warning. Only a recovery
  /// starts one, so a part that keeps failing is not asked again and again.
  func somethingChanged() {
    guard pending == nil, let last, last.failures.contains(where: looksRecovered) else {
      answered()
      return
    }
    start(last.trigger, client: nil, quiet: true)
  }

  /// Whether a part that failed reports well now, as far as the daemon hears without asking.
  private func looksRecovered(_ part: PreflightReport.Part) -> Bool {
    switch part.name {
    // Also when the only failure was having no reader at all and a remote one was enrolled.
    case "reader":
      return devices.readers.health.map { $0.state == .ok } ?? !devices.remoteReaders.names.isEmpty
    case "pairing": return dock.state.pairing.isPaired
    case "audio": return devices.ringer.health.state == .ok
    case "mixer":
      if case .unreachable = devices.ringer.mixerCheck { return false }
      return true
    default:
      guard part.name.hasPrefix("remote ") else { return false }
      return devices.remoteReaders.isOnline(String(part.name.dropFirst("remote ".count))) == true
    }
  }

  private func start(_ trigger: PreflightReport.Trigger, client: ControlServer.Client?, quiet: Bool) {
    let readerAskedAt = devices.readers.healthReports
    let askedReader = devices.readers.checkHealth()
    let audioAskedAt = devices.ringer.deviceChecks
    let askedAudio = devices.ringer.checkDevice()
    pending = Pending(
      trigger: trigger, clients: client.map { [$0] } ?? [], readerAskedAt: askedReader ? readerAskedAt : nil,
      audioAskedAt: askedAudio ? audioAskedAt : nil, quiet: quiet)
    do {
      try deadline.arm(after: Self.answerLimit)
    } catch {
      Log.error("pre-flight check: could not arm its timer (\(error)); reporting what is known now")
      finish()
      return
    }
    answered()
  }

  /// A device answered: the check finishes once every device it asked has.
  func answered() {
    guard let pending else { return }
    if let asked = pending.readerAskedAt, devices.readers.healthReports == asked { return }
    if let asked = pending.audioAskedAt, devices.ringer.deviceChecks == asked { return }
    finish()
  }

  private func finish() {
    guard let current = pending else { return }
    deadline.disarm()
    // Still pending while the parts are read: a check asked for meanwhile (the timer part can
    // re-arm the schedule) joins this one instead of starting another.
    var parts = readerParts(asked: current.readerAskedAt)
    parts.append(pairingPart())
    parts += audioParts(asked: current.audioAskedAt)
    parts += gpioParts()
    parts.append(clockPart())
    parts.append(timerPart())
    let report = PreflightReport(at: dock.time.instant, trigger: current.trigger, parts: parts)
    let clients = pending?.clients ?? current.clients
    let quiet = pending?.quiet ?? current.quiet
    pending = nil
    let before = last
    last = report
    tell(report, previous: before, quiet: quiet)
    for client in clients where !client.isClosed {
      var reply = ControlReply(
        ok: report.passed, message: report.parts.map { Self.line($0) }.joined(separator: "\n"))
      if !report.passed {
        reply.failure = ControlFailure(.failed, "the pre-flight check failed: \(Self.names(report.failures))")
      }
      reply.check = report
      client.send(reply)
    }
    dock.changes.mark(.status)
  }

  /// The log line, and before a coming alarm the chirp; a quiet re-check that changes nothing
  /// says nothing.
  private func tell(_ report: PreflightReport, previous: PreflightReport?, quiet: Bool) {
    let next = schedule.nextAlarm()
    guard !report.passed else {
      if previous?.passed == false || !quiet {
        Log.info(
          "pre-flight check (\(report.trigger.rawValue)) passed: \(report.parts.map(\.name).joined(separator: ", "))"
        )
      }
      // A part the config names that failed is said where the builder looks, every time it
      // changes, even when the check passes.
      if !report.warnings.isEmpty && (!quiet || previous?.warnings != report.warnings) {
        Log.warning(
          "pre-flight check (\(report.trigger.rawValue)): "
            + report.warnings.map { Self.line($0) }.joined(separator: "; "))
      }
      return
    }
    if quiet && previous?.failures.map(\.name) == report.failures.map(\.name) { return }
    let coming =
      next.map { " before the alarm \(dock.settings.describe($0.at)) (\($0.alarm.displayName))" } ?? ""
    Log.warning(
      "pre-flight check (\(report.trigger.rawValue)) FAILED\(coming): "
        + (report.failures + report.warnings).map { Self.line($0) }.joined(separator: "; "))
    if next != nil && !quiet { devices.ringer.cue(.checkFailed) }
  }

  private static func names(_ parts: [PreflightReport.Part]) -> String {
    parts.map(\.name).joined(separator: ", ")
  }

  /// A part's line with its next step, for the log and the reply's text.
  private static func line(_ part: PreflightReport.Part) -> String {
    part.line + (part.next.map { " — next: \($0)" } ?? "")
  }

  // MARK: - The parts

  /// The dock's own reader (unless `[reader] device = none`) and every remote reader.
  private func readerParts(asked: Int?) -> [PreflightReport.Part] {
    var parts: [PreflightReport.Part] = []
    if dock.settings.simulated {
      parts.append(
        PreflightReport.Part(
          "reader", ok: true, "SIMULATED: scans come from 'puckctl scan'; nothing enforces"))
    } else if let health = devices.readers.health {
      if let asked, devices.readers.healthReports == asked {
        parts.append(
          PreflightReport.Part(
            "reader", ok: false,
            "did not answer within \(Self.answerLimit.components.seconds) s (\(health.detail))"))
      } else {
        parts.append(PreflightReport.Part("reader", ok: health.state == .ok, health.detail))
      }
    }
    parts += devices.remoteReaders.check()
    if parts.isEmpty {
      parts.append(
        PreflightReport.Part(
          "reader", ok: false,
          "no reader: [reader] device = none and no remote reader is enrolled (sudo puckctl reader add NAME)")
      )
    }
    return parts
  }

  private func pairingPart() -> PreflightReport.Part {
    let (ok, detail) = dock.state.pairing.readBack()
    return PreflightReport.Part("pairing", ok: ok, detail)
  }

  /// The audio device as it answered the check (or as it plays, while ringing), its mixer and
  /// the sound.
  private func audioParts(asked: Int?) -> [PreflightReport.Part] {
    let health = devices.ringer.health
    let device = dock.settings.config.audio.device
    let audio: PreflightReport.Part
    if let asked, devices.ringer.deviceChecks == asked {
      audio = PreflightReport.Part(
        "audio", ok: false, "\(device) did not answer within \(Self.answerLimit.components.seconds) s")
    } else {
      audio = PreflightReport.Part("audio", ok: health.state == .ok, health.detail)
    }
    let sound: PreflightReport.Part
    if let problem = dock.settings.soundProblem {
      sound = PreflightReport.Part("sound", ok: false, problem)
    } else {
      let pcm = dock.settings.sound
      let tenths = pcm.frameCount * 10 / max(1, pcm.sampleRate)
      let name = dock.settings.config.audio.sound ?? "the built-in tone"
      sound = PreflightReport.Part(
        "sound", ok: true, "\(name) loaded (\(tenths / 10).\(tenths % 10) s, \(pcm.sampleRate) Hz)")
    }
    var parts = [audio]
    if let mixer = mixerPart() { parts.append(mixer) }
    parts.append(sound)
    return parts
  }

  /// The card's mixer as the device check read it back (docs/DESIGN.md V12): low controls are
  /// named with their state and pass, as a ring raises them; a mixer that cannot be opened
  /// fails, as nothing could raise it. Nil when the device did not open (the audio part says so).
  private func mixerPart() -> PreflightReport.Part? {
    let floor = dock.settings.config.audio.minMixerVolumePercent
    switch devices.ringer.mixerCheck {
    case nil: return nil
    case .noMixer:
      return PreflightReport.Part(
        "mixer", ok: true,
        "\(dock.settings.config.audio.device) has no mixer (a null or file device): nothing to raise")
    case .found(let control, let low) where low.isEmpty:
      return PreflightReport.Part(
        "mixer", ok: true, "\(control): every playback switch is on and every volume at least \(floor) %")
    case .found(let control, let low):
      return PreflightReport.Part(
        "mixer", ok: true,
        "\(control): \(low.map(\.description).joined(separator: "; ")) — will be raised when it rings "
          + "(switches on, volumes to at least \(floor) %) and put back after")
    case .unreachable(let fault):
      return PreflightReport.Part(
        "mixer", ok: false, "\(fault)",
        next: "a muted or turned-down mixer could not be raised when it rings; make the control device open "
          + "for puckd's user (the audio group), or set [audio] device to one whose mixer does")
    }
  }

  /// The buzzer (always: "not configured" passes) and the button and LED when the config names
  /// them. A part the config names that cannot be opened is FAILED with its next step, as a
  /// warning: the alarm rings without it, and a buzzer matters again only when the audio fails
  /// too, which fails the audio part.
  private func gpioParts() -> [PreflightReport.Part] {
    devices.lines.health.compactMap { health in
      switch health.state {
      case .absent:
        return health.device == .buzzer ? PreflightReport.Part("buzzer", ok: true, health.detail) : nil
      case .ok:
        return PreflightReport.Part(
          health.name, ok: true, health.device == .buzzer ? "line held: \(health.detail)" : health.detail)
      case .simulated: return PreflightReport.Part(health.name, ok: true, health.detail)
      case .fault:
        return PreflightReport.Part(
          health.name, ok: false, health.detail, next: health.next, severity: .warning)
      }
    }
  }

  private func clockPart() -> PreflightReport.Part {
    switch dock.time.isSynchronized() {
    case true?: return PreflightReport.Part("clock", ok: true, "synchronised (\(dock.settings.zoneName))")
    case false?:
      return PreflightReport.Part(
        "clock", ok: false, "NOT synchronised (no NTP yet?): alarms follow the clock as it is")
    case nil:
      return PreflightReport.Part("clock", ok: true, "the kernel cannot say whether it is synchronised")
    }
  }

  /// The alarm timer read back from the kernel; a wrong one is armed again and read back again.
  private func timerPart() -> PreflightReport.Part {
    let next = schedule.nextAlarm()
    guard let problem = schedule.timerProblem(next: next) else {
      return PreflightReport.Part(
        "timer", ok: true,
        next.map { "the kernel holds the alarm timer for \(dock.settings.describe($0.at))" }
          ?? "no alarm ahead; nothing to arm")
    }
    schedule.refresh()
    let after =
      schedule.timerProblem(next: schedule.nextAlarm()).map { "; arming it again failed: \($0)" }
      ?? "; armed again and read back"
    return PreflightReport.Part("timer", ok: false, problem + after)
  }
}
