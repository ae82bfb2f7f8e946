import Glibc

/// One ring, as run on its playback thread: open the device, loop the sound with the ramp,
/// recover underruns, reopen with backoff after a fault, and drop the device the moment a stop
/// is requested. Everything it changes lives in `run()`'s locals; the thread owns the PCM.
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
        outcome = play(on: pcm, renderer: &renderer, pending: &pending, failures: &failures)
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
    on pcm: ALSAPCM, renderer: inout RingRenderer, pending: inout PendingSamples, failures: inout Int
  ) -> Outcome {
    defer { pcm.close() }
    let limit = options.playLimit.map { sound.frames(in: $0) } ?? Int.max
    let chunkFrames = max(sound.sampleRate / 50, 64)
    let stallLimit = Duration.seconds(5)
    let pace = options.paceToWallClock ? Pace(sampleRate: sound.sampleRate, ahead: options.latency) : nil
    var descriptors: [pollfd]
    do {
      descriptors = try pcm.pollDescriptors()
    } catch {
      return .fault(error)
    }
    var lastProgress = ContinuousClock.now
    while true {
      if session.isStopRequested {
        try? pcm.drop()
        return .stopped
      }
      if pending.isEmpty {
        if renderer.framesRendered >= limit {
          try? pcm.drain()
          return .finished
        }
        if let pace, pace.isAhead(renderer.framesRendered) {
          _ = session.sleep(for: .milliseconds(5))
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
          continue
        } catch {
          return .fault(error)
        }
      } catch {
        return .fault(error)
      }
      if written > 0 {
        failures = 0
        lastProgress = .now
        continue
      }
      // The buffer is full: wait for room, a stop, or give up on a device that stopped moving.
      switch session.wait(on: &descriptors, timeout: .milliseconds(500)) {
      case .stopRequested:
        continue
      case .device:
        do {
          _ = try pcm.isWritable(after: &descriptors)
        } catch {
          return .fault(error)
        }
      case .timedOut:
        break
      }
      if ContinuousClock.now - lastProgress > stallLimit {
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

  mutating func refill(from renderer: inout RingRenderer, frames: Int) {
    renderer.render(frames: frames, into: &samples)
    taken = 0
  }

  /// Offers the rest to the PCM; returns the frames it took.
  mutating func write(to pcm: ALSAPCM) throws(ALSAError) -> Int {
    let start = taken
    let frames = try samples.withUnsafeBufferPointer { buffer throws(ALSAError) in
      try pcm.write(UnsafeBufferPointer(rebasing: buffer[start...]))
    }
    taken += frames * pcm.channels
    return frames
  }
}

/// Holds a ring to wall-clock pace on devices that take audio as fast as it comes (a `null`
/// slave): a test hook, so that a stop can be tested mid-ring without filling a disk.
private struct Pace {
  let sampleRate: Int
  let ahead: Duration
  let start = ContinuousClock.now

  /// Whether `frames` are more than `ahead` beyond real time.
  func isAhead(_ frames: Int) -> Bool {
    frames > PCMSound.frames(in: ContinuousClock.now - start + ahead, sampleRate: sampleRate)
  }
}
