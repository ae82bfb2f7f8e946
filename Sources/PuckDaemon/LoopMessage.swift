import PuckDevices

/// A message from another thread (audio, reader, button, a stopper) to the loop, or from the
/// loop to itself.
enum LoopMessage: Sendable {
  /// An event of the ringer made `generation`-th (a replaced ringer's late events are ignored).
  case audio(AudioEvent, generation: Int)
  /// The result of opening the audio device ahead of time (nil error: it opened) and of
  /// reading its mixer (nil when it did not open).
  case audioCheck(device: String, error: ALSAError?, mixer: MixerCheck?)
  /// An event of the reader made `generation`-th (a replaced reader's late events are ignored).
  case reader(TagReaderEvent, generation: Int)
  /// An event of remote reader `name`, the one made `generation`-th.
  case remoteReader(String, TagReaderEvent, generation: Int)
  /// The dock button was pressed: a bypass, as `puckctl stop`.
  case button(DockButton.Event)
  /// Stop the daemon as SIGTERM would (`DaemonStopper`).
  case stop
  /// Record the next slice of missed alarms (posted by the loop to itself, so requests, scans
  /// and the watchdog get their turn between slices).
  case recordMissed
  /// Home Assistant asked for something (discovery again, the bypass button).
  case homeAssistant(HomeAssistantBridge.Command)
  /// The wall clock was stepped, found while re-arming the wall timer (`ECANCELED`).
  case clockStepped

  /// The most messages from the network (Home Assistant's commands, remote readers' refusals)
  /// the inbox holds; more are dropped until the loop catches up (docs/DESIGN.md M8).
  static let networkBacklog = 256
}
