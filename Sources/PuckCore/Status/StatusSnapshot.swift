/// What the daemon knows that bears on the verdict, gathered at one moment. `ProtectionVerdict`
/// reads nothing else, so the verdict is a pure function of this value (docs/DESIGN.md R1).
public struct StatusSnapshot: Hashable, Sendable {
  /// A state file held because it cannot be read at all (docs/DESIGN.md D4).
  public struct UnreadableFile: Hashable, Sendable, Codable {
    /// The file's name in the state directory (`alarms.json`).
    public var file: String
    /// The read error, as the storage layer describes it.
    public var error: String

    public init(file: String, error: String) {
      self.file = file
      self.error = error
    }
  }

  /// Closed wake-ups journaled in `guards.json` that history could not take yet (D5).
  public struct UnrecordedHistory: Hashable, Sendable {
    /// How many entries wait.
    public var count: Int
    /// Why the last append failed.
    public var error: String

    public init(count: Int, error: String) {
      self.count = count
      self.error = error
    }
  }

  /// `puckd --simulate`: scans come from `puckctl scan`.
  public var simulated: Bool
  /// Each device's health, in the order status lists them.
  public var devices: [DeviceHealth]
  /// The paired tag, masked; nil when none is paired (or none could be read).
  public var pairedTag: String?
  /// Why `pairing.json` could not be read, when it could not.
  public var pairingProblem: String?
  /// Whether any alarm is enabled.
  public var hasEnabledAlarm: Bool
  /// The next alarm to ring; nil when none will. The verdict reads its `id` and `requiresPuck`.
  public var nextAlarm: Alarm?
  /// Whether the kernel says the clock is synchronised; nil when unknown.
  public var clockSynchronized: Bool?
  /// State files held unread, sorted by name.
  public var unreadableFiles: [UnreadableFile]
  /// History entries that wait after a failed append; nil when none wait or none failed.
  public var unrecordedHistory: UnrecordedHistory?
  /// Problems recorded in `problems.json` (corrupt copies kept aside), until acknowledged.
  public var stateProblems: [String]
  /// The config file's error, when the daemon runs on defaults or the previous settings.
  public var configProblem: String?
  /// The sound file's error, when the built-in tone rings instead.
  public var soundProblem: String?
  /// What is wrong with the alarm timer as the kernel holds it, read back just now; nil when it
  /// holds the next deadline (or nothing needs to be armed).
  public var timerProblem: String?
  /// The parts the last pre-flight check found failing; empty when it passed or none ran.
  public var failedChecks: [String] = []

  public init(
    simulated: Bool = false, devices: [DeviceHealth] = [], pairedTag: String? = nil,
    pairingProblem: String? = nil, hasEnabledAlarm: Bool = false, nextAlarm: Alarm? = nil,
    clockSynchronized: Bool? = nil, unreadableFiles: [UnreadableFile] = [],
    unrecordedHistory: UnrecordedHistory? = nil, stateProblems: [String] = [],
    configProblem: String? = nil, soundProblem: String? = nil, timerProblem: String? = nil,
    failedChecks: [String] = []
  ) {
    self.simulated = simulated
    self.devices = devices
    self.pairedTag = pairedTag
    self.pairingProblem = pairingProblem
    self.hasEnabledAlarm = hasEnabledAlarm
    self.nextAlarm = nextAlarm
    self.clockSynchronized = clockSynchronized
    self.unreadableFiles = unreadableFiles
    self.unrecordedHistory = unrecordedHistory
    self.stateProblems = stateProblems
    self.configProblem = configProblem
    self.soundProblem = soundProblem
    self.timerProblem = timerProblem
    self.failedChecks = failedChecks
  }

  /// The health of `device`, when the snapshot has it.
  public func health(of device: DockDevice) -> DeviceHealth? {
    devices.first { $0.device == device }
  }

  /// The `Problem:` lines status shows: recorded state problems, held files, waiting history,
  /// then the config and sound file. These stay text on the wire (`problems`); the verdict
  /// only counts them.
  public var problems: [String] {
    var lines = stateProblems
    lines += unreadableFiles.map {
      "\($0.file) cannot be read (\($0.error)); it is not written over until it can be read again (retried)"
    }
    if let history = unrecordedHistory {
      let count = history.count
      lines.append(
        "history.jsonl cannot be appended to (\(history.error)); \(count) entr\(count == 1 ? "y waits" : "ies wait") "
          + "in guards.json and will be recorded when it can (retried)")
    }
    if let configProblem { lines.append(configProblem) }
    if let soundProblem { lines.append(soundProblem) }
    return lines
  }
}
