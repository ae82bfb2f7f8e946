import PuckCore
import PuckPassword
import Synchronization

@testable import PuckWeb

/// A dock that answers from a script and records what it was asked.
final class ScriptedDock: DockLink {
  private let state: Mutex<State>

  private struct State {
    var requests: [ControlRequest] = []
    var status: DockStatus
    var alarms: [AlarmView] = []
    var history: [HistoryEntry] = []
    var check = PreflightReport(at: Instant(unixSeconds: 1_799_990_000), trigger: .request, parts: [])
    var reachable = true
  }

  init(status: DockStatus = ScriptedDock.sampleStatus) {
    state = Mutex(State(status: status))
  }

  /// Every request received, in order.
  var requests: [ControlRequest] { state.withLock { $0.requests } }

  var status: DockStatus {
    get { state.withLock { $0.status } }
    set { state.withLock { $0.status = newValue } }
  }

  var alarms: [AlarmView] {
    get { state.withLock { $0.alarms } }
    set { state.withLock { $0.alarms = newValue } }
  }

  /// Oldest first, as puckd keeps it.
  var history: [HistoryEntry] {
    get { state.withLock { $0.history } }
    set { state.withLock { $0.history = newValue } }
  }

  var check: PreflightReport {
    get { state.withLock { $0.check } }
    set { state.withLock { $0.check = newValue } }
  }

  var reachable: Bool {
    get { state.withLock { $0.reachable } }
    set { state.withLock { $0.reachable = newValue } }
  }

  func send(_ request: ControlRequest) throws(ControlFailure) -> ControlReply {
    let (reachable, status, alarms, history, check) = state.withLock { state in
      state.requests.append(request)
      return (state.reachable, state.status, state.alarms, state.history, state.check)
    }
    guard reachable else { throw ControlFailure(.failed, "puckd is not running") }
    switch request.name {
    case .status: return ControlReply(ok: true, status: status)
    case .alarmList: return ControlReply(ok: true, alarms: alarms)
    case .alarmAdd: return .success("alarm 1 added")
    case .history:
      // Pages from the newest backwards; the cursor is the index of the oldest entry sent.
      let end = request.integer(.before) ?? history.count
      let start = max(0, end - (request.integer(.limit) ?? 20))
      var reply = ControlReply(ok: true, history: Array(history[start..<min(end, history.count)]))
      reply.nextBefore = start > 0 ? start : nil
      return reply
    case .check:
      var reply = ControlReply(ok: check.passed)
      reply.check = check
      return reply
    case .pause: return .failure(ControlFailure(.refused, "a wake-up is open: the dock cannot pause now"))
    default: return .success("\(request.name.rawValue) done")
    }
  }

  static let sampleStatus = DockStatus(
    protected: false, reasons: ["no tag paired — run: sudo puckctl pair"], simulated: true,
    nextAlarm: "06:30 alarm", nextAlarmAt: Instant(unixSeconds: 1_800_000_000), guards: [], pairedTag: nil,
    devices: [DeviceHealth(.reader, state: .simulated, detail: "<b>no reader</b>")], clockSynchronized: true,
    problems: [], missed: [], zone: "Europe/Berlin")
}

/// The one password the tests use, hashed once (yescrypt takes a while on purpose).
enum TestPassword {
  static let text = "correct horse battery"
  static let hash: PasswordHash = {
    // A test fixture made from a literal that meets the rules: hashing cannot fail here.
    guard let hash = try? PasswordHash(hashing: text) else { fatalError("libcrypt cannot hash") }
    return hash
  }()
}
