import CALSA
import Glibc

/// The one owner of an alsa-lib simple mixer (`snd_mixer_t`) on the control device of the card
/// a PCM plays on: finds that device for a PCM name, reads the card's playback controls, raises
/// them and puts them back. Every ALSA call goes through `ALSAError.check(_:_:)`; the raw handle
/// never leaves this type and is freed in `close()` only (`snd_mixer_close`, which closes the
/// control device it was attached to).
///
/// Not `Sendable`: a mixer is used by one thread (a ring's, a restore's or a check's).
final class ALSAMixer {
  /// The control device the mixer is attached to, as `snd_ctl_open` names it.
  let control: String

  private var mixer: OpaquePointer?
  /// The inline configuration the control device was opened from; alsa-lib may refer to it
  /// until close.
  private var localConfiguration: OpaquePointer?

  /// Opens the simple mixer of the control device `control`, from the system's ALSA
  /// configuration or from `configuration` text: `snd_ctl_open` (or `snd_ctl_open_lconf`,
  /// nonblocking, so reading events never waits), `snd_hctl_open_ctl`, `snd_mixer_open`,
  /// `snd_mixer_attach_hctl`, `snd_mixer_selem_register`, `snd_mixer_load`.
  init(control: String, configuration: String? = nil) throws(ALSAError) {
    self.control = control
    var ctl: OpaquePointer?
    if let configuration {
      localConfiguration = try ALSAPCM.loadConfiguration(configuration)
      try ALSAError.check("snd_ctl_open_lconf") {
        snd_ctl_open_lconf(&ctl, control, SND_CTL_NONBLOCK, localConfiguration)
      }
    } else {
      try ALSAError.check("snd_ctl_open") { snd_ctl_open(&ctl, control, SND_CTL_NONBLOCK) }
    }
    var hctl: OpaquePointer?
    do {
      try ALSAError.check("snd_hctl_open_ctl") { snd_hctl_open_ctl(&hctl, ctl) }
    } catch {
      _ = snd_ctl_close(ctl)
      throw error
    }
    do {
      try ALSAError.check("snd_mixer_open") { snd_mixer_open(&mixer, 0) }
    } catch {
      _ = snd_hctl_close(hctl)
      throw error
    }
    do {
      try ALSAError.check("snd_mixer_attach_hctl") { snd_mixer_attach_hctl(mixer, hctl) }
    } catch {
      // Not attached: the hctl is still ours to close.
      _ = snd_hctl_close(hctl)
      close()
      throw error
    }
    do {
      try ALSAError.check("snd_mixer_selem_register") { snd_mixer_selem_register(mixer, nil, nil) }
      try ALSAError.check("snd_mixer_load") { snd_mixer_load(mixer) }
    } catch {
      close()
      throw error
    }
  }

  deinit { close() }

  /// The mixer of the card behind `device`, or nil when it has none (a `null` or `file` PCM).
  /// In order: the card its arguments name (`plughw:CARD=X,DEV=0` → `hw:CARD=X`), the card the
  /// opened PCM plays on (`snd_pcm_info`: a `dmix`, a `plug` over a card, a `default` an
  /// asoundrc points at a USB speaker), and only for a PCM on no card a control device of its
  /// own name (`pulse`, or a `default` that is PulseAudio). The played card first: a `ctl.!default`
  /// left on card 0 while `pcm.!default` plays on card 1 would raise the wrong card and leave
  /// the speaker muted. `pcm` opens the PCM only when it is needed. Throws when a control
  /// device is there but does not open.
  static func locate(for device: ALSADevice, pcm: () -> ALSAPCM?) throws(MixerFault) -> ALSAMixer? {
    if let card = cardControl(forPCM: device.name), let mixer = try open(card, configuration: nil) {
      return mixer
    }
    if let card = pcm()?.card(), let mixer = try open("hw:\(card)", configuration: nil) { return mixer }
    return try open(device.name, configuration: device.configuration)
  }

  /// The mixer on `control`; nil when ALSA has no control device of that name (`ENOENT`).
  private static func open(_ control: String, configuration: String?) throws(MixerFault) -> ALSAMixer? {
    do {
      return try ALSAMixer(control: control, configuration: configuration)
    } catch  where error.code == -ENOENT && error.function.hasPrefix("snd_ctl_open") {
      return nil
    } catch {
      throw MixerFault(control: control, error: error)
    }
  }

  /// The card's control device a PCM name's arguments point at: `hw:CARD=X` for
  /// `plughw:CARD=X,DEV=0` or `hdmi:CARD=X,DEV=0`, `hw:1` for `plughw:1,0`; nil for a name
  /// without arguments (`default`, `dmix`, `pulse`).
  static func cardControl(forPCM name: String) -> String? {
    guard let colon = name.firstIndex(of: ":") else { return nil }
    let arguments = name[name.index(after: colon)...].split(separator: ",").map {
      String($0.filter { $0 != " " && $0 != "\"" && $0 != "'" })
    }
    if let card = arguments.first(where: { $0.hasPrefix("CARD=") }) {
      let value = card.dropFirst("CARD=".count)
      return value.isEmpty ? nil : "hw:CARD=\(value)"
    }
    guard let first = arguments.first, !first.isEmpty, !first.contains("=") else { return nil }
    return "hw:\(first)"
  }

  /// The card's active playback controls (those with a playback switch or volume), as they
  /// are now: changes others made since the last read (`amixer`, `alsamixer`, a sound server)
  /// are taken in first (`snd_mixer_handle_events`).
  func controls() throws(ALSAError) -> [MixerControl] {
    let handle = try open("snd_mixer_handle_events")
    try ALSAError.check("snd_mixer_handle_events") { snd_mixer_handle_events(handle) }
    var controls: [MixerControl] = []
    var element = snd_mixer_first_elem(handle)
    while let current = element {
      element = snd_mixer_elem_next(current)
      if let control = try read(current) { controls.append(control) }
    }
    return controls
  }

  /// Turns on every playback switch of `low` and raises every playback volume to at least
  /// `percent` (`snd_mixer_selem_set_playback_switch`, `snd_mixer_selem_set_playback_volume`).
  /// A control that refuses does not keep the others low: each is tried, and the first
  /// failure is thrown after.
  func raise(_ low: [MixerControl], to percent: Int) throws(ALSAError) {
    try eachOf(low) { control throws(ALSAError) in try write(control.raised(to: percent)) }
  }

  /// Sets each control back to the switches and volumes it carries, each tried whatever
  /// another did; the first failure is thrown after.
  func restore(_ controls: [MixerControl]) throws(ALSAError) {
    try eachOf(controls) { control throws(ALSAError) in try write(control) }
  }

  /// Runs `body` on every control, then throws the first failure, if any.
  private func eachOf(_ controls: [MixerControl], _ body: (MixerControl) throws(ALSAError) -> Void)
    throws(ALSAError)
  {
    var first: ALSAError?
    for control in controls {
      do throws(ALSAError) {
        try body(control)
      } catch {
        first = first ?? error
      }
    }
    if let first { throw first }
  }

  /// Closes the mixer and the control device under it (`snd_mixer_close`) and frees the inline
  /// configuration (`snd_config_delete`). The only place either is freed; safe to call twice.
  func close() {
    if let mixer {
      _ = snd_mixer_close(mixer)
      self.mixer = nil
    }
    if let localConfiguration {
      _ = snd_config_delete(localConfiguration)
      self.localConfiguration = nil
    }
  }

  /// Every channel a simple-mixer element can have (`SND_MIXER_SCHN_FRONT_LEFT` to `_LAST`).
  private static let allChannels = (SND_MIXER_SCHN_FRONT_LEFT.rawValue...SND_MIXER_SCHN_LAST.rawValue).map {
    snd_mixer_selem_channel_id_t(rawValue: $0)
  }

  /// One element as a `MixerControl`; nil for an inactive one or one without playback controls.
  private func read(_ element: OpaquePointer) throws(ALSAError) -> MixerControl? {
    guard snd_mixer_selem_is_active(element) != 0 else { return nil }
    let hasSwitch = snd_mixer_selem_has_playback_switch(element) != 0
    let hasVolume = snd_mixer_selem_has_playback_volume(element) != 0
    guard hasSwitch || hasVolume else { return nil }
    let channels = Self.allChannels.filter { snd_mixer_selem_has_playback_channel(element, $0) != 0 }
    var switches: [Bool] = []
    var volumes: [Int] = []
    var low = 0
    var high = 0
    if hasVolume {
      try ALSAError.check("snd_mixer_selem_get_playback_volume_range") {
        snd_mixer_selem_get_playback_volume_range(element, &low, &high)
      }
    }
    for channel in channels {
      if hasSwitch {
        var on: Int32 = 0
        try ALSAError.check("snd_mixer_selem_get_playback_switch") {
          snd_mixer_selem_get_playback_switch(element, channel, &on)
        }
        switches.append(on != 0)
      }
      if hasVolume {
        var volume = 0
        try ALSAError.check("snd_mixer_selem_get_playback_volume") {
          snd_mixer_selem_get_playback_volume(element, channel, &volume)
        }
        volumes.append(volume)
      }
    }
    return MixerControl(
      name: String(cString: snd_mixer_selem_get_name(element)), index: snd_mixer_selem_get_index(element),
      switches: switches, volumes: volumes, range: low...max(low, high), channels: channels.map(\.rawValue))
  }

  /// Sets the element `control` names to its switches and volumes, channel by channel.
  private func write(_ control: MixerControl) throws(ALSAError) {
    let handle = try open("snd_mixer_find_selem")
    var id: OpaquePointer?
    try ALSAError.check("snd_mixer_selem_id_malloc") { snd_mixer_selem_id_malloc(&id) }
    defer { snd_mixer_selem_id_free(id) }
    snd_mixer_selem_id_set_name(id, control.name)
    snd_mixer_selem_id_set_index(id, control.index)
    guard let element = snd_mixer_find_selem(handle, id) else {
      throw ALSAError(code: -ENOENT, function: "snd_mixer_find_selem", detail: "no control \(control.label)")
    }
    for (position, raw) in control.channels.enumerated() {
      let channel = snd_mixer_selem_channel_id_t(rawValue: raw)
      if position < control.switches.count {
        try ALSAError.check("snd_mixer_selem_set_playback_switch") {
          snd_mixer_selem_set_playback_switch(element, channel, control.switches[position] ? 1 : 0)
        }
      }
      if position < control.volumes.count {
        try ALSAError.check("snd_mixer_selem_set_playback_volume") {
          snd_mixer_selem_set_playback_volume(element, channel, control.volumes[position])
        }
      }
    }
  }

  /// The open handle, or `-EBADFD` from `function` when the mixer was closed.
  private func open(_ function: String) throws(ALSAError) -> OpaquePointer {
    guard let mixer else { throw ALSAError(code: -EBADFD, function: function) }
    return mixer
  }
}
