// Status as data: what `puckctl status --json` and Home Assistant read, rendered once per loop
// turn by the status reporter (docs/DESIGN.md §9), and the views of alarms, pucks, devices and
// wake-ups it is made of.

/// A paired puck as `pucks` and status show it: its UID masked, as everywhere outside the
/// pairing file.
public struct PuckView: Hashable, Sendable, Codable {
  public var name: String
  /// The last two bytes of its UID (`…:33:44`).
  public var tag: String
  public var pairedAt: Instant
  public var lastSeen: Instant?

  public init(_ puck: PairedTag) {
    name = puck.name
    tag = puck.uid.masked
    pairedAt = puck.pairedAt
    lastSeen = puck.lastSeen
  }
}

/// An alarm with its next fire, as `alarm list` shows it.
public struct AlarmView: Hashable, Sendable, Codable {
  public var alarm: Alarm
  /// The next fire instant, nil when disabled or past.
  public var next: Instant?
  /// The next fire in local time, ISO 8601 with offset.
  public var nextLocal: String?
  /// Inside `lock_before` of its next fire: nothing may remove or delay it until then (a scan
  /// of the puck ends it early; docs/DESIGN.md S12). Nil when not locked, or from an older puckd.
  public var lockedUntil: Instant?

  public init(alarm: Alarm, next: Instant?, nextLocal: String?, lockedUntil: Instant? = nil) {
    self.alarm = alarm
    self.next = next
    self.nextLocal = nextLocal
    self.lockedUntil = lockedUntil
  }
}

/// The health of one device, as status and `puckctl test` show it.
public struct DeviceHealth: Hashable, Sendable, Codable {
  /// `reader`, `audio`, `buzzer`, `button`, `led`: a `DockDevice`'s raw value (see `device`).
  public var name: String
  public var state: State
  /// What it is or what went wrong ("PN532 v1.6 on pn532_uart:/dev/serial0", "cannot open 'default': No such device").
  public var detail: String
  /// For a part that failed, what a builder does next, in words that name the file, the
  /// section and the key ("the line GPIO22 is held by "foo": stop that program, … or choose
  /// another free line: line = in [buzzer] of /etc/puckalarm/puckd.conf"); nil when `detail` says it all,
  /// or from an older puckd.
  public var next: String?

  /// Where the device stands.
  public enum State: String, Hashable, Sendable, Codable {
    /// Present and answering.
    case ok
    /// Configured but failing; `detail` says how and `next` what to do. Shown as FAILED.
    case fault
    /// Not configured (no `[buzzer]` section, say). Never a part the config names that cannot
    /// be opened: that is a `fault`.
    case absent
    /// Stands in for real hardware (`--simulate`).
    case simulated
  }
}

/// An open wake-up, as status shows it.
public struct GuardView: Hashable, Sendable, Codable {
  /// "06:30 alarm, retry 2".
  public var description: String
  public var ringing: Bool
  public var bypassCount: Int
  public var openedAt: Instant
  /// When it rings again, while quiet.
  public var retryAt: Instant?

  public init(_ wakeGuard: WakeGuard) {
    description = wakeGuard.ringIdentity.description
    ringing = wakeGuard.isRinging
    bypassCount = wakeGuard.bypassCount
    openedAt = wakeGuard.openedAt
    retryAt = wakeGuard.retryAt
  }
}

/// Everything `puckctl status` shows.
public struct DockStatus: Hashable, Sendable, Codable {
  /// True when an enabled alarm will ring and can only be ended with the paired tag.
  public var protected: Bool
  /// Why not, one line each (`ProtectionReason.text`), for readers from before the codes.
  public var reasons: [String]
  /// Why not, as data: the same reasons in the same order, each with its stable `code` and its
  /// parameters. Nil from a puckd that sent only `reasons`.
  public var reasonCodes: [ProtectionReason]?
  public var simulated: Bool
  /// The next alarm: its name and instant.
  public var nextAlarm: String?
  public var nextAlarmAt: Instant?
  /// Open wake-ups.
  public var guards: [GuardView]
  /// The paired tag, masked; nil when none.
  public var pairedTag: String?
  public var devices: [DeviceHealth]
  /// Whether the kernel says the clock is synchronised (NTP); nil when unknown.
  public var clockSynchronized: Bool?
  /// State files that need attention (corrupt copies kept aside), until acknowledged.
  public var problems: [String]
  /// The newest missed alarms since the last acknowledge (a few; see `missedTotal`).
  public var missed: [String]
  public var zone: String
  /// How many alarms were missed since the last acknowledge; more than `missed` holds after a
  /// long downtime. Nil from a puckd that sent them all.
  public var missedTotal: Int?
  /// The whole dock is paused: no alarm rings before this date; nil when not paused.
  public var pausedUntil: LocalDate?
  /// When an override counting down closes the wake-ups; nil when none is.
  public var overrideAt: Instant?
  /// Overrides since the last acknowledge, newest last (a few).
  public var overrides: [String]?
  /// The last pre-flight check; nil before the first has finished (or from an older puckd).
  public var check: PreflightReport?
  /// The wake-up check waiting after a scan; nil when none is.
  public var awakeCheck: AwakeCheckView?
  /// Every paired puck (`pairedTag` is the first's tag, for older readers); nil from an older
  /// puckd.
  public var pucks: [PuckView]?
  /// The alarms locked now, inside `lock_before` of their time: each until it rings (a scan of
  /// the puck ends it early; docs/DESIGN.md S12). Nil from an older puckd.
  public var locked: [LockedAlarm]?
  /// Parts the config names that failed without costing protection (a buzzer that cannot be
  /// opened while the audio works, say), each with what to do next; nil from an older puckd.
  public var warnings: [StatusWarning]?

  /// An alarm locked before its time, as status shows it.
  public struct LockedAlarm: Hashable, Sendable, Codable {
    public var alarmID: AlarmID
    /// "06:30 alarm".
    public var description: String
    /// When it rings, the end of its lock.
    public var until: Instant

    public init(_ occurrence: AlarmOccurrence) {
      alarmID = occurrence.alarmID
      description = occurrence.displayName
      until = occurrence.scheduledAt
    }
  }

  /// A wake-up check as status shows it.
  public struct AwakeCheckView: Hashable, Sendable, Codable {
    /// When the dock asks.
    public var askAt: Instant
    /// Once it asked: the answer must come before this.
    public var answerBy: Instant?

    public init(askAt: Instant, answerBy: Instant?) {
      self.askAt = askAt
      self.answerBy = answerBy
    }
  }

  public init(
    protected: Bool, reasons: [String], simulated: Bool, nextAlarm: String?, nextAlarmAt: Instant?,
    guards: [GuardView], pairedTag: String?, devices: [DeviceHealth], clockSynchronized: Bool?,
    problems: [String], missed: [String], zone: String, missedTotal: Int? = nil,
    reasonCodes: [ProtectionReason]? = nil
  ) {
    self.protected = protected
    self.reasons = reasons
    self.reasonCodes = reasonCodes
    self.simulated = simulated
    self.nextAlarm = nextAlarm
    self.nextAlarmAt = nextAlarmAt
    self.guards = guards
    self.pairedTag = pairedTag
    self.devices = devices
    self.clockSynchronized = clockSynchronized
    self.problems = problems
    self.missed = missed
    self.zone = zone
    self.missedTotal = missedTotal
  }
}
