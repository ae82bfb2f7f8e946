import PuckCore
import PuckDevices
import PuckStorage

/// One-shot jobs `puckd` runs instead of the daemon, for systemd and for people.
public enum Maintenance {
  /// `puckd --check-config`: reads the config as the daemon would; prints `file:line: reason`
  /// and returns `.config` when it is wrong, `.success` when it is fine (a missing file is fine).
  public static func checkConfig(path: String) -> DaemonExitCode {
    do {
      _ = try ConfigFile.load(path)
      Log.info("\(path): ok")
      return .success
    } catch {
      Log.error("\(error)")
      return .config
    }
  }

  /// `puckd --buzzer-off` (the unit's `ExecStopPost=`): drives the configured buzzer line to
  /// its inactive level and exits, so a daemon that crashed mid-ring never leaves the buzzer
  /// sounding (a released GPIO output keeps its last level). No `[buzzer]` section: nothing to do.
  public static func buzzerOff(configPath: String) -> DaemonExitCode {
    let config: DockConfig
    do {
      config = try ConfigFile.load(configPath)
    } catch {
      Log.error("\(error); cannot tell which line the buzzer is on")
      return .config
    }
    guard config.buzzer != nil else { return .success }
    // The driver requests the line with its inactive level at once; shutdown releases it.
    let buzzer = BuzzerDriver(settings: config.buzzer)
    let health = buzzer.health
    buzzer.shutdown()
    guard health.state != .fault else {
      Log.error("buzzer: \(health.detail)")
      return .failure
    }
    Log.info("buzzer driven off")
    return .success
  }
}
