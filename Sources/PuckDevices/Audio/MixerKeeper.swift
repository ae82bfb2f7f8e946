import PuckSystem

/// Keeps the mixer of one opened PCM at the custody's floor, on the ring's thread: found on
/// first need, raised at once and every second after (a child pressing mute in `alsamixer`
/// mid-ring is undone within a second). A failure is reported once, and the mixer looked for
/// again a second later.
struct MixerKeeper {
  let device: ALSADevice
  let custody: MixerCustody
  let report: @Sendable (AudioEvent) -> Void
  private var mixer: ALSAMixer?
  private var located = false
  private var failing = false
  private var next: MonotonicInstant?

  init(device: ALSADevice, custody: MixerCustody, report: @escaping @Sendable (AudioEvent) -> Void) {
    self.device = device
    self.custody = custody
    self.report = report
  }

  /// Raises what is low if a second has passed since the last time (or this is the first).
  mutating func keep(_ pcm: ALSAPCM, now: MonotonicInstant = .now()) {
    if let next, now < next { return }
    next = now + .seconds(1)
    guard let floor = custody.floor else { return }
    do throws(MixerFault) {
      if !located {
        located = true
        mixer = try ALSAMixer.locate(for: device, pcm: { pcm })
      }
      guard let mixer else { return }
      do throws(ALSAError) {
        let controls = try mixer.controls()
        custody.snapshot(
          controls, on: mixer.control,
          configuration: mixer.control == device.name ? device.configuration : nil)
        let low = controls.filter { $0.isBelow(floor) }
        // Marked before the raise, so a raise that fails halfway is still put back.
        if !low.isEmpty, custody.raising(low) {
          try mixer.raise(low, to: floor)
          report(.mixer(.raised(control: mixer.control, low)))
        }
        failing = false
      } catch {
        throw MixerFault(control: mixer.control, error: error)
      }
    } catch {
      // Looked for again next time: a sound server that comes back is raised then.
      mixer = nil
      located = false
      if !failing { report(.mixer(.failed(error))) }
      failing = true
    }
  }
}
