import PuckCore
import PuckDevices
import PuckSystem

/// What makes the dock heard: the audio output and the buzzer, together, for a wake-up ring or
/// a `puckctl test` rehearsal. Both outputs always: if one fails the other carries the ring
/// (docs/DESIGN.md W2). The audio device is checked ahead of an alarm (D9) and replaced when
/// the config names another one.
final class Ringer {
  private let settings: Settings
  private let changes: DockChanges
  private let lines: DockLines
  private let inbox: LoopInbox<LoopMessage>
  private let makeAudio: DaemonEnvironment.AudioMaker
  /// Runs the device check off the loop thread.
  private let offLoop: DaemonEnvironment.OffLoop
  private var audio: any AudioOutput
  /// Counts the outputs made, so events of a replaced one are told apart.
  private var generation = 0
  private(set) var health = DeviceHealth(.audio, state: .ok, detail: "idle")
  /// How many answers `checkDevice` has had (the pre-flight check waits for one).
  private(set) var deviceChecks = 0
  /// What is ringing now and why; nil when silent or rehearsing.
  private(set) var ringing: RingIdentity?
  private(set) var rehearsing = false
  /// A cue (`cue`) plays on the speaker until `cueEnd` fires.
  private(set) var cueing = false
  /// A device check asked for while a cue played (a reload), made when it ends.
  private var checkAfterCue = false
  /// What the last device check found of the card's mixer; nil before one, or when the device
  /// did not open.
  private(set) var mixerCheck: MixerCheck?
  /// A wake-up rang and has not ended: its rings own the mixer, between retries too.
  private var wakeUpHoldsMixer = false
  /// The volume (percent) the current wake-up's ring had reached when a stop that needs no one
  /// at the dock silenced it (`carryLevel`): the next ring starts there, not back at
  /// `start_volume`, so a loop of such stops cannot keep the ring at the bottom of its ramp.
  private var carried = 0
  /// The volume (percent) the current or last ring started at.
  private var startedAt = 0
  /// Ends a cue once its beats and tail have played; made last in `init`, as its handler needs
  /// `self`.
  private var cueEnd: TimerHandle!

  init(
    settings: Settings, changes: DockChanges, lines: DockLines, loop: EventLoop<LoopMessage>,
    makeAudio: @escaping DaemonEnvironment.AudioMaker, offLoop: @escaping DaemonEnvironment.OffLoop
  ) throws(SystemError) {
    self.settings = settings
    self.changes = changes
    self.lines = lines
    let inbox = loop.inbox
    self.inbox = inbox
    self.makeAudio = makeAudio
    self.offLoop = offLoop
    audio = makeAudio("default") { event in inbox.post(.audio(event, generation: 0)) }
    cueEnd = try loop.timer(.monotonic) { [unowned self] _ in self.endCue() }
  }

  private var isSounding: Bool { ringing != nil || rehearsing }

  /// Whether the output keeps the mixer raised (docs/DESIGN.md V12): from a wake-up's first ring
  /// until it ends, and through a rehearsal.
  private var holdsMixer: Bool { wakeUpHoldsMixer || rehearsing }

  /// The output keeps the mixer at `[audio] min_mixer_volume` from now on.
  private func holdMixer() {
    audio.holdMixer(minimumVolume: settings.config.audio.minMixerVolumePercent)
  }

  /// A short signal on both outputs: the buzzer's chirp and the same beats on the speaker
  /// (`AlarmTone.cue`), held at the ring's starting volume, so a dock without a buzzer is heard
  /// too (the wake-up check's question, a failed pre-flight check, a wrong puck). Nothing
  /// while a ring or a rehearsal sounds; a ring or rehearsal that starts cuts the cue short.
  /// Not on a speaker known not to open: it would only retry and log faults that are not a
  /// ring's (the check that found it says so).
  func cue(_ pattern: BeatPattern) {
    lines.buzzer.chirp(pattern)
    guard !isSounding, health.state != .fault, let sound = AlarmTone.cue(pattern) else { return }
    if cueing { audio.stop() }
    audio.start(
      sound: sound, startVolume: Double(settings.config.audio.startVolumePercent) / 100, ramp: nil)
    cueing = true
    do {
      try cueEnd.arm(after: sound.duration)
    } catch {
      // Unreachable in practice (timerfd_settime on a live timer); never leave it looping.
      Log.error("audio: could not time the cue's end: \(error); cut short")
      endCue()
    }
  }

  /// The cue has played (or a ring takes over): the speaker is let go, and a device check
  /// put off meanwhile is made.
  private func endCue() {
    guard cueing else { return }
    cueing = false
    cueEnd.disarm()
    audio.stop()
    if checkAfterCue {
      checkAfterCue = false
      checkDevice()
    }
  }

  /// Rings for a wake-up.
  func ring(_ identity: RingIdentity) {
    ringing = identity
    Log.notice("RINGING \(identity.description)")
    let audioSettings = settings.config.audio
    // Each ring after a bypass starts louder by `volume_step` (docs/DESIGN.md W15).
    let percent = max(
      carried, min(100, audioSettings.startVolumePercent + identity.retry * audioSettings.volumeStepPercent))
    startedAt = percent
    endCue()
    wakeUpHoldsMixer = true
    holdMixer()
    audio.start(sound: settings.sound, startVolume: Double(percent) / 100, ramp: audioSettings.ramp)
    lines.buzzer.start()
  }

  /// No wake-up is open any more: the mixer is put back as the builder left it. Between the
  /// rings of one wake-up it stays raised.
  func wakeUpEnded() {
    carried = 0
    guard wakeUpHoldsMixer else { return }
    wakeUpHoldsMixer = false
    if !rehearsing { audio.releaseMixer() }
  }

  /// A stop from the socket or the network is about to silence the ring after it was heard for
  /// `heard`: the next ring of this wake-up starts at the volume this one reached on its ramp
  /// (docs/DESIGN.md W18).
  func carryLevel(afterHeard heard: Duration) {
    let ramp = settings.config.audio.ramp
    let progress = ramp > .zero ? min(1, heard / ramp) : 1
    carried = max(carried, startedAt + Int(Double(100 - startedAt) * progress))
  }

  /// Silences a wake-up ring.
  func silence() {
    if let identity = ringing { Log.notice("silenced \(identity.description)") }
    ringing = nil
    audio.stop()
    lines.buzzer.stop()
  }

  /// Rings a rehearsal at the starting volume, without the ramp: loud enough to hear that it
  /// works, not a wake-up.
  func startRehearsal() {
    rehearsing = true
    endCue()
    holdMixer()
    audio.start(
      sound: settings.sound, startVolume: Double(settings.config.audio.startVolumePercent) / 100, ramp: nil)
    lines.buzzer.start()
  }

  func stopRehearsal() {
    let wasRehearsing = rehearsing
    rehearsing = false
    audio.stop()
    if wasRehearsing && !wakeUpHoldsMixer { audio.releaseMixer() }
    lines.buzzer.stop()
  }

  /// The GPIO lines were made again (a reload): a ring going on continues on the new buzzer.
  func linesReplaced() {
    if ringing != nil { lines.buzzer.start() }
  }

  /// Follows `[audio] device` after the config was read. A ring (or rehearsal) going on moves
  /// to the new device at once, at full volume (it has been ringing: the volume never drops
  /// back to the start of the ramp), so what status says plays is what plays; the old device
  /// is dropped. Events of the old output are ignored from here on.
  func applySettings() {
    let device = settings.config.audio.device
    // A new min_mixer_volume counts from the next raise.
    if holdsMixer { holdMixer() }
    guard audio.deviceName != device else {
      if !isSounding { health = DeviceHealth(.audio, state: .ok, detail: "idle on \(device)") }
      return
    }
    let before = audio.deviceName
    let playing = isSounding
    // The reload checks the new device once it is made; the old one needs no check.
    checkAfterCue = false
    endCue()
    if playing { audio.stop() }
    // The old card is put back; the new one is held from its first ring.
    if holdsMixer { audio.releaseMixer() }
    mixerCheck = nil
    generation += 1
    let current = generation
    let inbox = self.inbox
    audio = makeAudio(device) { event in inbox.post(.audio(event, generation: current)) }
    if holdsMixer { holdMixer() }
    guard playing else {
      health = DeviceHealth(.audio, state: .ok, detail: "idle on \(device)")
      return
    }
    Log.notice("audio: the device changed from \(before) to \(device) mid-ring; the ring moves to it")
    health = DeviceHealth(.audio, state: .ok, detail: "starting on \(device) (moved from \(before))")
    audio.start(sound: settings.sound, startVolume: 1, ramp: .zero)
  }

  /// Opens the audio device once, off the loop thread, so status can say before an alarm
  /// whether it would sound (docs/DESIGN.md D9: checked ahead, not at fire time). False when no
  /// check was started (the device is in use, which answers the question).
  @discardableResult
  func checkDevice() -> Bool {
    guard !isSounding else { return false }
    guard !cueing else {
      checkAfterCue = true
      return false
    }
    let output = audio
    let inbox = self.inbox
    let floor = settings.config.audio.minMixerVolumePercent
    offLoop {
      do throws(ALSAError) {
        try output.checkOpens()
        let mixer = output.checkMixer(minimumVolume: floor)
        inbox.post(.audioCheck(device: output.deviceName, error: nil, mixer: mixer))
      } catch {
        inbox.post(.audioCheck(device: output.deviceName, error: error, mixer: nil))
      }
    }
    return true
  }

  /// The answer of `checkDevice`: whether the device opens, and what its mixer is.
  func deviceChecked(_ device: String, error: ALSAError?, mixer: MixerCheck?) {
    // An answer that comes while a cue plays still counts: the check began before the cue.
    guard !isSounding, device == settings.config.audio.device else { return }
    deviceChecks += 1
    mixerCheck = mixer
    if case .unreachable(let fault) = mixer {
      Log.error(
        "audio: \(fault) — it could not be raised if it were muted or turned down when the alarm rings")
    }
    if let error {
      health = DeviceHealth(.audio, state: .fault, detail: "cannot open \(device): \(error)")
      Log.error("audio: the device \(device) does not open: \(error) — an alarm would have no sound")
    } else {
      health = DeviceHealth(.audio, state: .ok, detail: "\(device) opens")
    }
    changes.mark([.devices, .status])
  }

  /// An event of the output made `generation`-th; a replaced output's last words (its
  /// `.stopped`) say nothing about the current one.
  func received(_ event: AudioEvent, generation: Int) {
    guard generation == self.generation else { return }
    switch event {
    case .playing(let device, let rate, let channels):
      health = DeviceHealth(.audio, state: .ok, detail: "playing on \(device) (\(rate) Hz, \(channels) ch)")
      Log.info("audio: playing on \(device)")
    case .fault(let fault):
      health = DeviceHealth(.audio, state: .fault, detail: fault.description)
      logFault(fault)
    case .mixer(let event):
      logMixer(event)
      return
    case .stopped, .finished:
      if health.state == .ok {
        health.detail = "idle on \(settings.config.audio.device)"
      } else {
        // The device failed during the ring that just ended: check it again now it is free.
        checkDevice()
      }
    }
    changes.mark([.devices, .status])
  }

  /// Says what is really true of a ring whose audio failed: the buzzer carries it only if one
  /// is configured and working; otherwise nobody hears anything, which is the worst state the
  /// dock can be in while a wake-up is open, and is logged as critical.
  private func logFault(_ fault: AudioFault) {
    guard ringing != nil else {
      Log.error("audio: \(fault.description)")
      return
    }
    let buzzer = lines.buzzer
    if buzzer.health.state == .ok && buzzer.isRinging {
      Log.error("audio: \(fault.description) — the buzzer still rings; audio is retried")
    } else {
      Log.critical(
        "audio: \(fault.description) — NOTHING is audible: the audio failed and no buzzer works "
          + "(\(buzzer.health.detail)); audio is retried")
    }
  }

  /// What the output did to the mixer, for the builder who finds it changed.
  private func logMixer(_ event: MixerEvent) {
    switch event {
    case .raised(let control, let low):
      Log.warning(
        "audio: the mixer \(control) was low: \(low.map(\.description).joined(separator: "; ")) — raised to at "
          + "least \(settings.config.audio.minMixerVolumePercent) % with every playback switch on while it rings"
      )
    case .restored(let control, let controls):
      Log.info(
        "audio: the mixer \(control) is put back as it was: \(controls.map(\.description).joined(separator: "; "))"
      )
    case .failed(let fault):
      if ringing != nil {
        Log.error(
          "audio: \(fault) — it cannot be raised: a muted or turned-down mixer would keep this ring quiet")
      } else {
        Log.error("audio: \(fault)")
      }
    }
  }

  /// Stops the audio without waiting (first step of a shutdown), and puts a raised mixer back
  /// (`waitUntilStopped` waits for that too): a wake-up still open rings again after a restart.
  func stopAudio() {
    audio.stop()
    audio.releaseMixer()
  }

  /// Waits for the audio to let go of the device, up to `timeout`.
  func waitUntilStopped(timeout: Duration) {
    _ = audio.waitUntilStopped(timeout: timeout)
  }
}
