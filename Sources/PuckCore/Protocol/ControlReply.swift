/// One reply line. Progress lines (`pair` waiting for a tag) carry only `progress`; the final
/// line carries `ok` and, by command, a result.
public struct ControlReply: Hashable, Sendable, Codable {
  public var v: Int = ControlWire.version
  /// Present on the final line: whether the command succeeded.
  public var ok: Bool?
  /// A progress message for the person waiting.
  public var progress: String?
  /// The failure, when `ok` is false.
  public var failure: ControlFailure?
  /// A one-line result for a person ("alarm 3 added: 06:30 weekdays, next Mon 06:30").
  public var message: String?
  public var status: DockStatus?
  public var alarms: [AlarmView]?
  /// A page of history, oldest first and newest last.
  public var history: [HistoryEntry]?
  /// With `history`: the cursor for the next older page (send it as `before`); absent when the
  /// page reaches the oldest entry.
  public var nextBefore: Int?
  /// `check`: what the pre-flight check found.
  public var check: PreflightReport?
  /// `pucks`: the paired pucks.
  public var pucks: [PuckView]?
  /// With `ok`: the command found nothing to do (`stop` with nothing ringing); puckctl exits 3.
  public var nothingToDo: Bool?
  /// `alarm.list`: the whole dock's pause, apart from each alarm's own.
  public var pausedUntil: LocalDate?
  /// `reader.list`: each enrolled remote reader's health, in the order of their names.
  public var readers: [DeviceHealth]?

  public init(
    ok: Bool? = nil, progress: String? = nil, failure: ControlFailure? = nil, message: String? = nil,
    status: DockStatus? = nil, alarms: [AlarmView]? = nil, history: [HistoryEntry]? = nil,
    nextBefore: Int? = nil
  ) {
    self.ok = ok
    self.progress = progress
    self.failure = failure
    self.message = message
    self.status = status
    self.alarms = alarms
    self.history = history
    self.nextBefore = nextBefore
  }

  /// A final success line.
  public static func success(_ message: String? = nil) -> ControlReply {
    ControlReply(ok: true, message: message)
  }

  /// A final success line for a command that found nothing to do.
  public static func nothingToDo(_ message: String) -> ControlReply {
    var reply = ControlReply(ok: true, message: message)
    reply.nothingToDo = true
    return reply
  }

  /// A final failure line.
  public static func failure(_ failure: ControlFailure) -> ControlReply {
    ControlReply(ok: false, failure: failure, message: failure.message)
  }

  /// A final failure line of `kind` saying `message`.
  public static func failure(_ kind: ControlFailure.Kind, _ message: String) -> ControlReply {
    failure(ControlFailure(kind, message))
  }

  /// A progress line.
  public static func progress(_ text: String) -> ControlReply { ControlReply(progress: text) }
}
