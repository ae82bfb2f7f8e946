import Glibc
import PuckCore
import PuckDevices
import PuckStorage
import PuckSystem

/// What the dock is configured to do: the options it was started with, the config file, the
/// sound it rings and the system's time zone. Read at start and on SIGHUP; a config that does
/// not parse keeps the previous settings (defaults at start) and is shown in status, so a typo
/// never silences the alarm.
final class Settings {
  private(set) var options: DaemonOptions
  /// Whether `--simulate` was given: then the reader's config is not used, at start-up or on
  /// reload.
  let simulateFlag: Bool
  private(set) var config: DockConfig = .defaults
  /// A config file that did not parse, or a reload that cannot take effect: status shows it
  /// until fixed.
  private(set) var configProblem: String?
  /// The sound, decoded ahead of time (docs/DESIGN.md D9), never at fire time.
  private(set) var sound: PCMSound = AlarmTone.sound
  private(set) var soundProblem: String?
  private(set) var zone: ZoneRules = .utc
  private(set) var zoneName = "UTC"
  private var zoneWatch: DirectoryWatch?
  private let zones: ZoneInfoDirectory

  init(options: DaemonOptions, zones: ZoneInfoDirectory) {
    self.options = options
    simulateFlag = options.simulate
    self.zones = zones
  }

  /// Whether scans come from `puckctl scan` instead of a reader.
  var simulated: Bool { options.simulate }

  /// Reads the config file and loads its sound.
  func load(reloading: Bool) {
    do {
      config = try ConfigFile.load(options.configPath)
      configProblem = nil
    } catch {
      configProblem = "config: \(error)"
      Log.error(
        "\(error)\(reloading ? "; keeping the previous settings" : "; using defaults until it is fixed")")
      if !reloading { config = .defaults }
    }
    sound = AlarmTone.sound
    soundProblem = nil
    if let path = config.audio.sound {
      do {
        sound = try SoundFile.load(path: path)
      } catch {
        soundProblem = "sound file: \(error)\(Self.sandboxNote(error)); the built-in tone will ring instead"
        Log.error(soundProblem ?? "")
      }
    }
    if !reloading, case .simulated = config.reader.device, !options.simulate {
      // `device = simulated` in the config is as explicit as the flag.
      Log.notice("[reader] device = simulated: running without a reader")
      options.simulate = true
    }
  }

  /// The folders the packaged service's sandbox hides (puckd.service: `ProtectHome=yes`,
  /// `PrivateTmp=yes`): a sound there that plays from a shell is missing to the service.
  static let hiddenFromTheService = ["/home/", "/root/", "/run/user/", "/tmp/", "/var/tmp/"]

  /// Where to put the file instead, when it could not be read from one of those folders.
  static func sandboxNote(_ error: any Error) -> String {
    guard case .unreadable(let path, _)? = error as? SoundFileError,
      hiddenFromTheService.contains(where: { path.hasPrefix($0) })
    else { return "" }
    return
      " (the puckd service cannot see /home, /root, /run/user or /tmp: keep sounds in /usr/local/share/sounds"
      + " or /etc/puckalarm)"
  }

  /// A reload asked for something that cannot take effect until a restart: shown beside any
  /// problem the config itself has.
  func addConfigProblem(_ problem: String) {
    configProblem = [configProblem, problem].compactMap { $0 }.joined(separator: "; ")
  }

  /// Re-reads the system zone from the tz database (a tzdata update or a new /etc/localtime
  /// takes effect here); keeps the previous rules if it cannot be read.
  func reloadZone() {
    do {
      zone = try zones.systemZone()
      zoneName = zones.systemZoneName() ?? zone.name
    } catch {
      Log.error("time zone: \(error); keeping \(zoneName)")
    }
  }

  /// Watches the zone link: /etc/localtime is replaced (not written) by timedatectl, so its
  /// directory is watched. On a change the zone is read again and `onChange` runs.
  func watchZone(on loop: EventLoop<LoopMessage>, onChange: @escaping () -> Void) {
    let path = zones.localtimePath
    let slash = path.lastIndex(of: "/") ?? path.startIndex
    let directory = String(path[..<slash])
    let names: Set<String> = [String(path[path.index(after: slash)...]), "timezone"]
    guard let watch = try? DirectoryWatch(directory: directory.isEmpty ? "/" : directory) else { return }
    zoneWatch = watch
    try? loop.watch(watch.fd) { [unowned self] _ in
      guard !watch.changedNames().isDisjoint(with: names) else { return }
      let before = self.zoneName
      self.reloadZone()
      Log.notice("time zone changed (\(before) → \(self.zoneName)); recomputing alarms")
      onChange()
    }
  }

  /// This dock's name among the docks a reader serves and in Home Assistant: `[mqtt]
  /// dock_name`, else the host name made fit (lower case; what is not a letter, digit, `-` or
  /// `_` becomes `-`).
  var dockName: String {
    if let name = config.mqtt.dockName { return name }
    let fitted = String(
      Self.hostName().lowercased().prefix(32).map {
        $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "-"
      })
    return fitted.isEmpty ? "dock" : fitted
  }

  /// The system's host name (`gethostname`), or "" when it cannot be read.
  private static func hostName() -> String {
    // A fixed buffer read through its own pointer: the array form (`&buffer` with the count
    // read in the same call) crashed Swift 6.0.3's debug build when the array was released.
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
      buffer.initialize(repeating: 0)
      guard let start = buffer.baseAddress, gethostname(start, buffer.count - 1) == 0 else { return "" }
      return String(cString: start)
    }
  }

  /// The `[mqtt]` broker, with the password read from its file; throws when `password_file` is
  /// set but missing or not root-only (issue 22 item 7): never a silent anonymous login.
  func broker() throws(StorageError) -> BrokerSettings {
    let mqtt = config.mqtt
    var broker = BrokerSettings(host: mqtt.host, port: mqtt.port)
    broker.username = mqtt.username
    broker.caFile = mqtt.caFile
    if let file = mqtt.passwordFile { broker.password = try MQTTPasswordFile.read(file) }
    return broker
  }

  /// An instant in the dock's zone, for logs and replies.
  func describe(_ instant: Instant) -> String {
    zone.describe(instant)
  }

  /// The guard machine's settings for the current config and pairing.
  func guardSettings(pucks: [TagUID: String]) -> WakeGuardSettings {
    var settings = WakeGuardSettings(
      retryDelay: config.enforcement.retryDelay, ringTimeout: config.enforcement.ringTimeout, pucks: pucks)
    settings.retryShrink = config.enforcement.retryShrink
    settings.retryFloor = config.enforcement.retryFloor
    settings.networkBypass = config.homeAssistant.bypass
    settings.stopAfter = config.enforcement.stopAfter
    return settings
  }
}
