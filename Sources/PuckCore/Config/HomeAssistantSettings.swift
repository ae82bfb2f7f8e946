/// `[homeassistant]`: Home Assistant through MQTT discovery, over the `[mqtt]` broker
/// (docs/DESIGN.md M7). Off unless asked for.
public struct HomeAssistantSettings: Hashable, Sendable {
  /// `enabled`: publish the dock to Home Assistant.
  public var enabled = false
  /// `discovery_prefix`: Home Assistant's discovery prefix.
  public var discoveryPrefix = "homeassistant"

  public init() {}
}
