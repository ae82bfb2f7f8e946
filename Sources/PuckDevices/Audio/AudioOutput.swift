/// The dock's speaker, as the daemon sees it: ring a sound in a loop with a rising volume,
/// stop at once. `ALSARinger` plays on an ALSA device; tests of the daemon use a double.
public protocol AudioOutput: AnyObject, Sendable {
  /// Starts ringing `sound` in a loop, from `startVolume` (0...1) rising to full volume over
  /// `ramp` (`.zero`: full volume at once), or held at `startVolume` when `ramp` is nil (a
  /// rehearsal, a cue). Returns at once; a device that cannot be opened is retried while the
  /// ring is wanted, and reported through `health`. Does nothing if a ring is already going.
  func start(sound: PCMSound, startVolume: Double, ramp: Duration?)
  /// Silences the ring now (buffered audio is dropped, not played out) and cancels retries.
  /// Returns at once.
  func stop()
  /// What the output is doing, for status.
  var health: AudioHealth { get }
  /// The device it plays on, as the config names it.
  var deviceName: String { get }
  /// Checks ahead of an alarm that the device opens and takes the ring's format, on the
  /// calling thread. Call it while idle.
  func checkOpens() throws(ALSAError)
  /// Waits until the latest ring has closed the device (and a restore of the mixer has
  /// finished), or `timeout` passed; true when it has.
  func waitUntilStopped(timeout: Duration) -> Bool
  /// From now until `releaseMixer()`, every ring keeps the card's playback switches on and its
  /// playback volumes at least `minimumVolume` percent, at its start and every second while it
  /// plays (docs/DESIGN.md V12). Returns at once.
  func holdMixer(minimumVolume: Int)
  /// Ends `holdMixer`: what the rings raised is put back as it was, off the caller's thread,
  /// once the ring has let go. Returns at once.
  func releaseMixer()
  /// Reads the card's mixer back on the calling thread: no mixer, the controls below
  /// `minimumVolume` percent, or a mixer that cannot be opened. Call it while idle.
  func checkMixer(minimumVolume: Int) -> MixerCheck
}

/// What an audio output is doing, for status.
public enum AudioHealth: Sendable, Equatable {
  /// Not ringing.
  case idle
  /// Ringing was asked for; the device is being opened.
  case starting
  /// Sound is going to the device.
  case playing(device: String)
  /// The device failed; it is reopened after the fault's delay while the ring is wanted.
  case faulted(AudioFault)
}

/// A failed attempt to play on an audio device.
public struct AudioFault: Error, Sendable, Equatable, CustomStringConvertible {
  /// The device's PCM name.
  public let device: String
  /// What alsa-lib said.
  public let error: ALSAError
  /// Consecutive failures so far, 1 for the first.
  public let attempt: Int
  /// When the device is tried again.
  public let retryIn: Duration

  /// One line for the log and for status.
  public var description: String {
    "audio device \(device) failed (attempt \(attempt)): \(error); retrying in \(retryIn)"
  }
}

/// Something that happened to a ring, delivered on the playback thread.
public enum AudioEvent: Sendable, Equatable {
  /// The device opened and sound is going to it, at this rate and channel count.
  case playing(device: String, sampleRate: Int, channels: Int)
  /// The device could not be opened or failed mid-ring; it will be retried.
  case fault(AudioFault)
  /// The ring ended because `stop()` was called; the device is dropped and closed.
  case stopped
  /// The ring ended because its play limit was reached; the device is drained and closed.
  case finished
  /// The mixer was raised, put back, or could not be reached (`holdMixer`).
  case mixer(MixerEvent)
}
