/// One playback control of a card's mixer as it was read: its simple-mixer name, its switch and
/// its volume on every channel. Percentages are of the control's raw range, as `amixer` shows
/// them.
public struct MixerControl: Sendable, Hashable, CustomStringConvertible {
  /// The simple-mixer name, such as `Master`, `PCM` or `Speaker`.
  public var name: String
  /// The simple-mixer index: 0, or which of several controls of the same name.
  public var index: UInt32
  /// Each channel's playback switch (true: on, sounding); empty when the control has no switch.
  public var switches: [Bool]
  /// Each channel's raw playback volume; empty when the control has no volume.
  public var volumes: [Int]
  /// The raw volume range (`snd_mixer_selem_get_playback_volume_range`).
  public var range: ClosedRange<Int>
  /// The channel of each entry of `switches` and `volumes` (`snd_mixer_selem_channel_id_t`).
  var channels: [Int32]

  /// A control as read; `channels` numbers the entries of `switches` and `volumes` (0, 1, …
  /// when nil).
  public init(
    name: String, index: UInt32 = 0, switches: [Bool], volumes: [Int], range: ClosedRange<Int>,
    channels: [Int32]? = nil
  ) {
    self.name = name
    self.index = index
    self.switches = switches
    self.volumes = volumes
    self.range = range
    self.channels = channels ?? (0..<Int32(max(switches.count, volumes.count))).map { $0 }
  }

  /// `Master`, or `Speaker,1` for the second control of that name.
  public var label: String { index == 0 ? name : "\(name),\(index)" }

  /// Whether any channel's switch is off.
  public var isMuted: Bool { switches.contains(false) }

  /// The quietest channel's volume in percent of the range, rounded as `amixer` rounds it; nil
  /// for a control without a volume.
  public var percent: Int? {
    guard let lowest = volumes.min() else { return nil }
    let span = range.upperBound - range.lowerBound
    guard span > 0 else { return 100 }
    return Int((Double(lowest - range.lowerBound) * 100 / Double(span)).rounded())
  }

  /// The raw volume that is `percent` of the range, rounded up, so it reads back as at least
  /// that.
  func rawVolume(atLeast percent: Int) -> Int {
    let span = range.upperBound - range.lowerBound
    return range.lowerBound + (span * min(100, max(0, percent)) + 99) / 100
  }

  /// Whether the control is muted or any channel's volume is below `percent`.
  public func isBelow(_ percent: Int) -> Bool {
    isMuted || volumes.contains { $0 < rawVolume(atLeast: percent) }
  }

  /// The control as it is once raised: every switch on, every volume at least `percent`.
  func raised(to percent: Int) -> MixerControl {
    var raised = self
    raised.switches = switches.map { _ in true }
    raised.volumes = volumes.map { max($0, rawVolume(atLeast: percent)) }
    return raised
  }

  /// `Master muted, 40 %`, `PCM 0 %`, `Speaker off`.
  public var description: String {
    var parts: [String] = []
    if isMuted { parts.append("muted") }
    if let percent { parts.append("\(percent) %") }
    if parts.isEmpty { parts.append("on") }
    return "\(label) \(parts.joined(separator: ", "))"
  }
}
