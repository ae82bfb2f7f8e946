import PuckCore

/// The dock's devices, as the components that report on them or check them see them: the ring
/// (audio and buzzer), the dock's reader, the reader nodes, and the GPIO lines. Built once by
/// `Daemon`; each component reaches a device through it.
struct DockDevices {
  /// Audio and buzzer.
  let ringer: Ringer
  /// The dock's own reader (libnfc or simulated).
  let readers: Readers
  /// Reader nodes over MQTT.
  let remoteReaders: RemoteReaders
  /// The buzzer, LED and button.
  let lines: DockLines

  /// Every device as status and `puckctl test` show it, as last reported. A query: it changes
  /// nothing (a stuck reader is found by `Readers.refreshProgress`).
  func health() -> [DeviceHealth] {
    var found = [readers.health].compactMap { $0 } + remoteReaders.health
    if found.isEmpty {
      found = [
        DeviceHealth(
          .reader, state: .fault,
          detail:
            "no reader: [reader] device = none and no remote reader is enrolled (sudo puckctl reader add NAME)"
        )
      ]
    }
    return found + [ringer.health] + lines.health
  }
}
