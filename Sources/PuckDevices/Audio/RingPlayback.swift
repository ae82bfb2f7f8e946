import Glibc
import PuckSystem

/// One ring, as run on its playback thread: open the device, loop the sound with the ramp,
/// keep the card's mixer raised while the custody holds it, recover underruns, reopen with
/// backoff after a fault, and drop the device the moment a stop is requested. Everything it changes lives in `run()`'s locals; the thread owns the PCM.
struct RingPlayback: Sendable {
  /// How a stretch of playing on one opened PCM ended.
  private enum Outcome {
    case stopped
    case finished
    case fault(ALSAError)
  }

  let session: PlaybackSession
  let device: ALSADevice
  let sound: PCMSound
  let ramp: VolumeRamp
  let options: ALSARinger.Options
  /// Whether (and how high) the ring keeps the card's mixer raised.
  let custody: MixerCustody
  let report: @Sendable (AudioEvent) -> Void

  /// Plays until stopped or finished. Waits (a bounded time) for `previous` ring's thread
  /// first, so two rings never hold the device at once.
  func run(after previous: PlaybackSession?) {
    defer { session.markExited() }
    if let previous {
      // A previous thread stuck in a device call must not keep this ring from trying.
      _ = previous.waitUntilExited(timeout: .seconds(2))
    }
    var renderer = RingRenderer(sound: sound, ramp: ramp)
    var pending = PendingSamples()
    var failures = 0
    while !session.isStopRequested {
      let outcome: Outcome
      do {
        let pcm = try ALSAPCM(device: device, mode: .nonblocking)
        try pcm.configure(channels: sound.channels, sampleRate: sound.sampleRate, latency: options.latency)
        report(.playing(device: device.name, sampleRate: sound.sampleRate, channels: sound.channels))
        var keeper = MixerKeeper(device: device, custody: custody, report: report)
        outcome = play(
          on: pcm, renderer: &renderer, pending: &pending, failures: &failures, keeper: &keeper)
      } catch {
        outcome = .fault(error)
      }
      switch outcome {
      case .stopped:
        report(.stopped)
        return
      case .finished:
        report(.finished)
        return
      case .fault(let error):
        failures += 1
        let delay = options.retry.delay(afterFailures: failures)
        report(.fault(AudioFault(device: device.name, error: error, attempt: failures, retryIn: delay)))
        if session.sleep(for: delay) {
          report(.stopped)
          return
        }
      }
    }
    report(.stopped)
  }

  /// Writes the ring to an opened PCM until a stop, the play limit, or a device fault, and
  /// leaves the PCM closed. Samples rendered but not yet taken stay in `pending` for the next
  /// device, so the ramp never restarts.
  private func play(
    on pcm: ALSAPCM, renderer: inout RingRenderer, pending: inout PendingSamples, failures: inout Int,
    keeper: inout MixerKeeper
  ) -> Outcome {
    defer { pcm.close() }
    let limit = options.playLimit.map { sound.frames(in: $0) } ?? Int.max
    let chunkFrames = max(sound.sampleRate / 50, 64)
    let stallLimit = Duration.seconds(5)
    // One device buffer and two chunks ahead of real time at most (see `Pace`).
    var pace = Pace(
      sampleRate: sound.sampleRate,
      ahead: options.latency + PCMSound.duration(ofFrames: 2 * chunkFrames, sampleRate: sound.sampleRate),
      frames: renderer.framesRendered)
    /// Writes in a row that took nothing although the device said it had room.
    var emptyWrites = 0
    var descriptors: [pollfd]
    do {
      descriptors = try pcm.pollDescriptors()
    } catch {
      return .fault(error)
    }
    var lastProgress = MonotonicInstant.now()
    while true {
      if session.isStopRequested {
        try? pcm.drop()
        return .stopped
      }
      // Before the first write and every second after: a muted mixer must not make it silent.
      keeper.keep(pcm)
      if pending.isEmpty {
        if renderer.framesRendered >= limit {
          try? pcm.drain()
          return .finished
        }
        if let delay = pace.delay(before: renderer.framesRendered) {
          // Blocking here is what this thread is for; a stop wakes it at once.
          _ = session.sleep(for: delay)
          continue
        }
        pending.refill(from: &renderer, frames: min(chunkFrames, limit - renderer.framesRendered))
      }
      let written: Int
      do {
        written = try pending.write(to: pcm)
      } catch  where error.isRecoverable {
        do {
          try pcm.recover(from: error)
          // An underrun: the device ran dry, so let it fill up again from now on.
          pace.restart(frames: renderer.framesRendered - pending.framesLeft(channels: pcm.channels))
          continue
        } catch {
          return .fault(error)
        }
      } catch {
        return .fault(error)
      }
      if written > 0 {
        session.countWritten(frames: written)
        failures = 0
        emptyWrites = 0
        lastProgress = .now()
        continue
      }
      // The buffer is full: the device sets the pace now. Wait for room, a stop, or give up on
      // a device that stopped moving.
      pace.restart(frames: renderer.framesRendered - pending.framesLeft(channels: pcm.channels))
      switch session.wait(on: &descriptors, timeout: .milliseconds(500)) {
      case .stopRequested:
        continue
      case .device:
        do {
          _ = try pcm.isWritable(after: &descriptors)
        } catch {
          return .fault(error)
        }
        emptyWrites += 1
        if emptyWrites > 1 {
          // A plugin whose descriptors say "ready" while it takes nothing would make this loop
          // spin: give it a few milliseconds (stop still wakes the sleep at once).
          _ = session.sleep(for: .milliseconds(5))
        }
      case .timedOut:
        break
      }
      if MonotonicInstant.now() - lastProgress > stallLimit {
        return .fault(
          ALSAError(code: -ETIMEDOUT, function: "snd_pcm_writei", detail: "device took no audio for 5 s"))
      }
    }
  }
}

/// Rendered samples not yet taken by the device.
private struct PendingSamples {
  private var samples: [Int16] = []
  private var taken = 0

  var isEmpty: Bool { taken == samples.count }

  /// Frames rendered but not yet taken.
  func framesLeft(channels: Int) -> Int {
    (samples.count - taken) / max(1, channels)
  }

  mutating func refill(from renderer: inout RingRenderer, frames: Int) {
    renderer.render(frames: frames, into: &samples)
    taken = 0
  }

  /// Offers the rest to the PCM; returns the frames it took.
  mutating func write(to pcm: ALSAPCM) throws(ALSAError) -> Int {
    let start = taken
    // Through a Result: Swift 6.0's withUnsafeBufferPointer rethrows `any Error`, so a typed
    // throw from inside its closure would not keep its type there (6.1 and later keep it).
    let written = samples.withUnsafeBufferPointer { buffer in
      Result { () throws(ALSAError) -> Int in
        try pcm.write(UnsafeBufferPointer(rebasing: buffer[start...]))
      }
    }
    let frames = try written.get()
    taken += frames * pcm.channels
    return frames
  }
}

/// Holds a ring to the clock whatever the device does. A sound card takes audio at its own
/// rate and makes writes wait; a `null` PCM, some plugins and some network sinks take
/// everything at once, and a ring that trusted them would render millions of frames a second
/// and spin a core. So the ring never runs more than `ahead` beyond the time elapsed since its
/// origin on CLOCK_MONOTONIC (`MonotonicInstant`: a wall-clock step never speeds it up or
/// stalls it), and sleeps on its own thread until it may write again.
///
/// When the device itself makes the ring wait (its buffer is full) or underruns, the device is
/// the better clock: the origin moves to that moment, so a card whose crystal runs a little
/// faster or slower than CLOCK_MONOTONIC is neither starved nor overfilled over a long ring.
struct Pace {
  let sampleRate: Int
  /// How far the ring may run ahead of real time: the device buffer plus a little slack.
  let ahead: Duration
  private var origin: MonotonicInstant
  private var originFrames: Int

  /// A pace that starts now with `frames` already written.
  init(sampleRate: Int, ahead: Duration, frames: Int, now: MonotonicInstant = .now()) {
    self.sampleRate = max(1, sampleRate)
    self.ahead = ahead
    origin = now
    originFrames = frames
  }

  /// The device set the pace at `now` with `frames` written: count real time from here.
  mutating func restart(frames: Int, now: MonotonicInstant = .now()) {
    origin = now
    originFrames = frames
  }

  /// How long to wait before writing beyond `frames`; nil when it may be written now.
  func delay(before frames: Int, now: MonotonicInstant = .now()) -> Duration? {
    let due = origin + PCMSound.duration(ofFrames: frames - originFrames, sampleRate: sampleRate) - ahead
    return due > now ? due - now : nil
  }
}
