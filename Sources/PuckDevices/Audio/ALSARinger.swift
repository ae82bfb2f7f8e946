import PuckSystem
import Synchronization

/// The dock's speaker on an ALSA PCM: each ring plays on its own dedicated thread, loops the
/// sound with a software volume ramp, and is dropped (not drained) the moment `stop()` is
/// called. A device that cannot be opened, or fails mid-ring (unplugged USB card, a sound
/// server going away), is closed, reported through `health` and `onEvent`, and reopened with
/// `RetryBackoff` while the ring is wanted; `stop()` cancels the retries.
///
/// Synchronisation: `Sendable` without `@unchecked`. The mutable state (the current ring and
/// the health) is behind a `Mutex`; each ring's thread owns its PCM and talks to the caller only
/// through its `PlaybackSession` (an atomic stop flag and pipes) and the `@Sendable` event
/// callback, which it calls on the playback thread.
///
/// Checking by hand, on a board or through a null sink: hardware/README.md, "Sound".
public final class ALSARinger: AudioOutput {
  /// How a ringer plays.
  public struct Options: Sendable {
    /// The device buffer, passed to `snd_pcm_set_params`: longer survives scheduling hiccups,
    /// shorter stops sooner on devices that cannot drop. 150 ms by default. A ring never runs
    /// more than this (and two 20 ms chunks) ahead of real time, even on a device that takes
    /// audio as fast as it comes (`null`).
    public var latency: Duration = .milliseconds(150)
    /// Delays between attempts to reopen a failed device.
    public var retry: RetryBackoff = .standard
    /// Play at most this long, then drain and end with `.finished` (rehearsals, tests);
    /// nil rings until stopped.
    public var playLimit: Duration?

    /// The defaults: 150 ms latency, standard backoff, no play limit.
    public init() {}
  }

  /// The PCM this ringer plays on.
  public let device: ALSADevice
  /// How it plays.
  public let options: Options

  private let onEvent: @Sendable (AudioEvent) -> Void
  private let state = Mutex(State())
  /// Whether rings raise the mixer, and what it was before.
  private let custody = MixerCustody()

  private struct State {
    /// The ring that is wanted now, nil when stopped or finished.
    var current: PlaybackSession?
    /// The latest ring started, wanted or not, until its thread is gone.
    var latest: PlaybackSession?
    var health: AudioHealth = .idle
  }

  /// A ringer for `device`. `onEvent` is called on the playback thread for every `AudioEvent`;
  /// it must return quickly (hand the event to the daemon's loop).
  public init(
    device: ALSADevice, options: Options = Options(),
    onEvent: @escaping @Sendable (AudioEvent) -> Void = { _ in }
  ) {
    self.device = device
    self.options = options
    self.onEvent = onEvent
  }

  deinit {
    state.withLock { $0.current }?.requestStop()
  }

  /// What the ringer is doing now.
  public var health: AudioHealth { state.withLock { $0.health } }

  /// Starts a ring on a new playback thread and returns at once; does nothing if a ring is
  /// already wanted (the volume never jumps back down). `startVolume` is clamped to 0...1; a
  /// nil `ramp` holds it.
  public func start(sound: PCMSound, startVolume: Double, ramp: Duration?) {
    guard state.withLock({ $0.current == nil }) else { return }
    let session: PlaybackSession
    do {
      session = try PlaybackSession()
    } catch {
      fail(AudioFault(device: device.name, error: error, attempt: 1, retryIn: .zero))
      return
    }
    let previous = state.withLock { state -> PlaybackSession?? in
      guard state.current == nil else { return nil }
      defer {
        state.current = session
        state.latest = session
        state.health = .starting
      }
      return .some(state.latest)
    }
    guard let previous else { return }
    let playback = RingPlayback(
      session: session, device: device, sound: sound,
      ramp: ramp.map { VolumeRamp(startVolume: startVolume, frames: sound.frames(in: $0)) }
        ?? .steady(startVolume),
      options: options, custody: custody,
      report: { [weak self, onEvent] event in
        self?.record(event, from: session)
        onEvent(event)
      })
    do throws(SystemError) {
      try SystemThread.detach { playback.run(after: previous) }
    } catch {
      state.withLock { state in
        if state.current === session { state.current = nil }
      }
      session.markExited()
      fail(
        AudioFault(
          device: device.name, error: ALSAError(code: -error.code, function: error.call), attempt: 1,
          retryIn: .zero))
    }
  }

  /// Asks the ring's thread to drop the device now (`snd_pcm_drop`, buffered audio discarded)
  /// and to cancel any retry, and returns without waiting; `health` is `.idle` at once and
  /// `.stopped` follows from the thread. Use `waitUntilStopped` to know the device is closed.
  public func stop() {
    let session = state.withLock { state -> PlaybackSession? in
      defer {
        state.current = nil
        state.health = .idle
      }
      return state.current
    }
    session?.requestStop()
  }

  /// Waits until the latest ring's thread has closed the device and exited, or `timeout`
  /// passed; true when no ring thread is left (for shutdown: SIGTERM must leave the PCM dropped).
  public func waitUntilStopped(timeout: Duration) -> Bool {
    guard let latest = state.withLock({ $0.latest }) else { return true }
    return latest.waitUntilExited(timeout: timeout)
  }

  /// Every ring from now until `releaseMixer()` keeps the card's playback switches on and its
  /// playback volumes at least `minimumVolume` percent, at its start and every second.
  public func holdMixer(minimumVolume: Int) {
    custody.hold(floor: min(100, max(0, minimumVolume)))
  }

  /// Rings leave the mixer alone from now on, and what they raised is put back as it was, on a
  /// thread of its own that first waits (a bounded time) for the latest ring's thread to let
  /// go; the next ring waits for it in turn, so a restore and a raise never cross. Returns at
  /// once; `waitUntilStopped` waits for the restore too.
  public func releaseMixer() {
    custody.release()
    guard custody.hasOriginals, let session = try? PlaybackSession() else { return }
    let previous = state.withLock { state -> PlaybackSession? in
      defer { state.latest = session }
      return state.latest
    }
    let custody = self.custody
    let onEvent = self.onEvent
    let restore: @Sendable () -> Void = {
      defer { session.markExited() }
      if let previous { _ = previous.waitUntilExited(timeout: .seconds(2)) }
      // A wake-up that began meanwhile holds the mixer again: putting the builder's settings
      // back now would mute its ring. They stay kept for that hold's own release.
      guard custody.floor == nil, let originals = custody.takeOriginals() else { return }
      do throws(ALSAError) {
        let mixer = try ALSAMixer(control: originals.control, configuration: originals.configuration)
        defer { mixer.close() }
        try mixer.restore(originals.controls)
        onEvent(.mixer(.restored(control: originals.control, originals.controls)))
      } catch {
        onEvent(.mixer(.failed(MixerFault(control: originals.control, error: error))))
      }
    }
    do throws(SystemError) {
      try SystemThread.detach(restore)
    } catch {
      // No thread to be had: put it back here rather than leave it raised.
      restore()
    }
  }

  /// Reads the card's mixer on the calling thread: which playback controls are muted or below
  /// `minimumVolume` percent, or that the device has none, or that it cannot be opened. Opens
  /// the PCM (for its card) only when its name leads to no control device. Call it while idle.
  public func checkMixer(minimumVolume: Int) -> MixerCheck {
    var opened: ALSAPCM?
    defer { opened?.close() }
    do throws(MixerFault) {
      let mixer = try ALSAMixer.locate(for: device) {
        opened = try? ALSAPCM(device: device, mode: .nonblocking)
        return opened
      }
      guard let mixer else { return .noMixer }
      defer { mixer.close() }
      do throws(ALSAError) {
        return .found(control: mixer.control, low: try mixer.controls().filter { $0.isBelow(minimumVolume) })
      } catch {
        throw MixerFault(control: mixer.control, error: error)
      }
    } catch {
      return .unreachable(error)
    }
  }

  /// What the latest ring cost (frames taken, the thread's CPU time once it exited).
  var latestRingStatistics: RingStatistics? {
    state.withLock { $0.latest }?.statistics
  }

  /// The PCM's name.
  public var deviceName: String { device.name }

  /// `checkDevice` with the built-in tone's format.
  public func checkOpens() throws(ALSAError) {
    try checkDevice(channels: 1, sampleRate: AlarmTone.sampleRate)
  }

  /// Checks ahead of an alarm that the device opens and takes this format: opens, configures
  /// and closes it on the calling thread (`snd_pcm_open`, `snd_pcm_set_params`, `snd_pcm_close`).
  /// Call it while idle: a hardware device cannot be opened twice.
  public func checkDevice(channels: Int = 1, sampleRate: Int = AlarmTone.sampleRate) throws(ALSAError) {
    let pcm = try ALSAPCM(device: device, mode: .nonblocking)
    defer { pcm.close() }
    try pcm.configure(channels: channels, sampleRate: sampleRate, latency: options.latency)
  }

  /// Updates `health` from an event of `session`, if that ring is still the wanted one.
  private func record(_ event: AudioEvent, from session: PlaybackSession) {
    state.withLock { state in
      guard state.current === session else { return }
      switch event {
      case .playing(let device, _, _): state.health = .playing(device: device)
      case .fault(let fault): state.health = .faulted(fault)
      case .stopped, .finished:
        state.current = nil
        state.health = .idle
      case .mixer: break
      }
    }
  }

  private func fail(_ fault: AudioFault) {
    state.withLock { $0.health = .faulted(fault) }
    onEvent(.fault(fault))
  }
}
