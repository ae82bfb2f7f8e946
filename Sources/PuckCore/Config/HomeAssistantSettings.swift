/// `[homeassistant]`: Home Assistant through MQTT discovery, over the `[mqtt]` broker
/// (docs/DESIGN.md M7). Off unless asked for.
public struct HomeAssistantSettings: Hashable, Sendable {
  /// `enabled`: publish the dock to Home Assistant.
  public var enabled = false
  /// `discovery_prefix`: Home Assistant's discovery prefix.
  public var discoveryPrefix = "homeassistant"
  /// `bypass_button`, `bypass_after`, `bypass_limit`: when the bypass button (any press from the
  /// network) silences a ring (docs/DESIGN.md M9); off by default.
  public var bypass = NetworkBypassPolicy.off
  /// `pre_alarm`: how long before each alarm the pre-alarm event goes out, for wake-up lights
  /// (docs/DESIGN.md M10).
  public var preAlarm: Duration = .seconds(30 * 60)

  public init() {}
}
