import PuckCore
import Synchronization

@testable import PuckDevices

/// A reader the test presents tags to: the daemon's real `Readers` component drives it (start,
/// polling on and off, health checks) and receives its events through the loop, as it would
/// from libnfc's thread.
final class ScriptedReader: TagReader {
  private struct State {
    var enabled = false
    var started = false
    var stopped = false
    var health = DeviceCondition(.ok, "scripted reader")
    var answersChecks = true
  }

  let connstring: String?
  /// The cadence the daemon asked for (`[reader] poll_interval`).
  let pollInterval: Duration
  private let onEvent: @Sendable (TagReaderEvent) -> Void
  private let state = Mutex(State())

  init(
    connstring: String?, pollInterval: Duration = .zero, onEvent: @escaping @Sendable (TagReaderEvent) -> Void
  ) {
    self.connstring = connstring
    self.pollInterval = pollInterval
    self.onEvent = onEvent
  }

  func start() {
    let health = state.withLock { state in
      state.started = true
      return state.health
    }
    onEvent(.health(health))
  }

  func start(after previous: (any TagReader)?) {
    previous?.requestStop()
    start()
  }

  func setEnabled(_ enabled: Bool) { state.withLock { $0.enabled = enabled } }
  func checkHealth() {
    if state.withLock({ $0.answersChecks }) { onEvent(.health(health)) }
  }
  func checkProgress() -> DeviceCondition? { nil }
  var health: DeviceCondition { state.withLock { $0.health } }
  func stop() { state.withLock { $0.stopped = true } }
  func requestStop() { state.withLock { $0.stopped = true } }

  /// Whether the daemon has the RF field on (a wake-up open or a pairing waiting).
  var isPolling: Bool { state.withLock { $0.enabled } }
  var isStopped: Bool { state.withLock { $0.stopped } }

  /// A tag arrives. As libnfc's reader, a tag is only seen while polling.
  func present(_ uid: TagUID, fresh: Bool = true) {
    guard isPolling else { return }
    onEvent(.scanned(uid, fresh: fresh))
    onEvent(.removed)
  }

  /// The reader fails, or comes back.
  func report(_ health: DeviceCondition) {
    state.withLock { $0.health = health }
    onEvent(.health(health))
  }

  /// The reader stops answering health checks (a chip that hangs), so a pre-flight check waits
  /// out its limit.
  func stopAnsweringChecks() {
    state.withLock { $0.answersChecks = false }
  }

  /// What the reader says of itself changes without an event, as a remote reader's "heard N s
  /// ago" moves on between the node's messages.
  func drift(_ health: DeviceCondition) {
    state.withLock { $0.health = health }
  }
}

/// An audio output that records what the daemon asked of it and reports as ALSA would.
final class RecordingAudio: AudioOutput {
  enum Call: Equatable {
    case start(volume: Double, ramp: Duration?)
    case stop
  }

  /// What the daemon asked of the mixer (`AudioOutput.holdMixer`, `releaseMixer`).
  enum MixerCall: Equatable {
    case hold(minimumVolume: Int)
    case release
  }

  private struct State {
    var calls: [Call] = []
    /// The sound of each start, in order.
    var sounds: [PCMSound] = []
    var playing = false
    var opens = true
    /// Whether starting and stopping report `.playing` and `.stopped`, as ALSA's thread does.
    var reports = true
    var mixerCalls: [MixerCall] = []
    /// What `checkMixer` reads back.
    var mixer = MixerCheck.found(control: "double", low: [])
  }

  let deviceName: String
  private let onEvent: @Sendable (AudioEvent) -> Void
  private let state = Mutex(State())

  init(device: String, onEvent: @escaping @Sendable (AudioEvent) -> Void) {
    deviceName = device
    self.onEvent = onEvent
  }

  func start(sound: PCMSound, startVolume: Double, ramp: Duration?) {
    let started = state.withLock { state -> Bool in
      guard !state.playing else { return false }
      state.playing = true
      state.calls.append(.start(volume: startVolume, ramp: ramp))
      state.sounds.append(sound)
      return state.reports
    }
    if started { onEvent(.playing(device: deviceName, sampleRate: 48_000, channels: 1)) }
  }

  func stop() {
    let stopped = state.withLock { state -> Bool in
      guard state.playing else { return false }
      state.playing = false
      state.calls.append(.stop)
      return state.reports
    }
    if stopped { onEvent(.stopped) }
  }

  var health: AudioHealth { state.withLock { $0.playing ? .playing(device: deviceName) : .idle } }

  func checkOpens() throws(ALSAError) {
    guard state.withLock({ $0.opens }) else {
      throw ALSAError(code: -2, function: "snd_pcm_open", detail: "no such device")
    }
  }

  func waitUntilStopped(timeout: Duration) -> Bool { true }

  func holdMixer(minimumVolume: Int) {
    state.withLock { $0.mixerCalls.append(.hold(minimumVolume: minimumVolume)) }
  }

  func releaseMixer() {
    state.withLock { $0.mixerCalls.append(.release) }
  }

  func checkMixer(minimumVolume: Int) -> MixerCheck { state.withLock { $0.mixer } }

  /// What `checkMixer` reads back from now on.
  func setMixer(_ mixer: MixerCheck) { state.withLock { $0.mixer = mixer } }

  /// The mixer calls in order.
  var mixerCalls: [MixerCall] { state.withLock { $0.mixerCalls } }

  /// Whether the last mixer call holds it.
  var holdsMixer: Bool {
    if case .hold = mixerCalls.last { return true }
    return false
  }

  /// The device fails mid-ring (it vanished), as ALSA reports it; the ring is retried.
  func fail() {
    let error = ALSAError(code: -19, function: "snd_pcm_writei", detail: "No such device")
    onEvent(.fault(AudioFault(device: deviceName, error: error, attempt: 1, retryIn: .seconds(1))))
  }

  /// The device is back and the ring plays again.
  func recover() {
    onEvent(.playing(device: deviceName, sampleRate: 48_000, channels: 1))
  }

  /// Whether starting and stopping report back (false: the events of the loop's own turn alone
  /// are seen, without the device thread's answer that follows them).
  func setReports(_ reports: Bool) { state.withLock { $0.reports = reports } }

  /// Whether the device opens when checked (false: as if unplugged).
  func setOpens(_ opens: Bool) { state.withLock { $0.opens = opens } }

  var calls: [Call] { state.withLock { $0.calls } }
  var sounds: [PCMSound] { state.withLock { $0.sounds } }
  var isPlaying: Bool { state.withLock { $0.playing } }
  /// How many rings started (not counting the cues of `Ringer.cue`).
  var starts: Int { sounds.count { !Self.cues.contains($0) } }
  private static let cues = [
    AlarmTone.cue(.awakeCheck), AlarmTone.cue(.checkFailed), AlarmTone.cue(.wrongPuck),
  ]
  .compactMap { $0 }
}

/// Makes the daemon's reader and audio outputs and keeps them for the test.
final class DeviceBench: Sendable {
  private let made = Mutex<(readers: [ScriptedReader], audio: [RecordingAudio])>(([], []))
  private let remotes = Mutex<[String: ScriptedReader]>([:])

  /// The remote reader made last under `name` (its connstring is the name).
  func remote(_ name: String) -> ScriptedReader? { remotes.withLock { $0[name] } }

  func makeRemoteReader(
    _ configuration: RemoteTagReader.Configuration, _ onEvent: @escaping @Sendable (TagReaderEvent) -> Void
  ) -> any TagReader {
    let reader = ScriptedReader(connstring: configuration.name, onEvent: onEvent)
    remotes.withLock { $0[configuration.name] = reader }
    return reader
  }

  var reader: ScriptedReader? { made.withLock { $0.readers.last } }
  var audio: RecordingAudio? { made.withLock { $0.audio.last } }
  var readersMade: Int { made.withLock { $0.readers.count } }

  func makeReader(
    _ configuration: NFCTagReader.Configuration, _ onEvent: @escaping @Sendable (TagReaderEvent) -> Void
  ) -> any TagReader {
    let reader = ScriptedReader(
      connstring: configuration.connstring, pollInterval: configuration.pollInterval, onEvent: onEvent)
    made.withLock { $0.readers.append(reader) }
    return reader
  }

  func makeAudio(_ device: String, _ onEvent: @escaping @Sendable (AudioEvent) -> Void) -> any AudioOutput {
    let audio = RecordingAudio(device: device, onEvent: onEvent)
    made.withLock { $0.audio.append(audio) }
    return audio
  }
}
