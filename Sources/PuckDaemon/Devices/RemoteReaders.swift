import Glibc
import PuckCore
import PuckDevices
import PuckStorage
import PuckSystem

/// The remote readers (docs/DESIGN.md M1–M5): one `RemoteTagReader` per reader enrolled with
/// `puckctl reader add`, all through the `[mqtt]` broker. Any of them can end a wake-up; each
/// is listed in status with its health. Enrolment is the key file in the state directory:
/// adding one starts it at once, removing one stops it.
final class RemoteReaders {
  private struct Entry {
    let reader: any TagReader
    let generation: Int
    var health: DeviceHealth
    /// The health as last reported (without "heard N s ago"), for what the log says.
    var reported: DeviceHealth?
  }

  private let dock: DockContext
  private let makeRemote: DaemonEnvironment.RemoteReaderMaker
  private var entries: [String: Entry] = [:]
  /// Counts the readers made, so events of a removed or replaced one are told apart.
  private var generation = 0
  private var polling = false
  /// A tag was scanned on a remote reader (fresh: presented, not lying there).
  @Wired("RemoteReaders.onScan") var onScan: (TagUID, Bool, _ reader: String) -> Void
  /// Whether a wake-up is open, for what a fault's log line says.
  @Wired("RemoteReaders.wakeUpIsOpen") var wakeUpIsOpen: () -> Bool

  init(dock: DockContext, makeRemote: @escaping DaemonEnvironment.RemoteReaderMaker) {
    self.dock = dock
    self.makeRemote = makeRemote
  }

  /// The enrolled readers' names, sorted.
  var names: [String] { entries.keys.sorted() }

  /// Each remote reader's health, by name.
  var health: [DeviceHealth] { names.compactMap { entries[$0].map(Self.current) } }

  /// Starts every enrolled reader (start-up, and after `[mqtt]` changed on reload).
  func start() {
    for entry in entries.values { entry.reader.requestStop() }
    entries = [:]
    let names: [String]
    do {
      names = try dock.state.readerKeys.names()
    } catch {
      Log.error("remote readers: \(error)")
      return
    }
    for name in names { startReader(name) }
  }

  /// Enrols reader `name` with `key` (another dock's, shared) or a new one and starts it;
  /// returns the key for the node.
  func enroll(_ name: String, key given: ReaderKey? = nil) throws -> ReaderKey {
    guard let key = given ?? ReaderKey.generate() else { throw RemoteReaderError.noRandomness }
    try dock.state.readerKeys.create(name, key: key.hex)
    Log.notice("remote reader \(name) enrolled")
    startReader(name)
    return key
  }

  /// Stops reader `name` and removes its key; false when it was not enrolled.
  func remove(_ name: String) throws -> Bool {
    let removed = try dock.state.readerKeys.remove(name)
    if let entry = entries.removeValue(forKey: name) { entry.reader.requestStop() }
    if removed { Log.notice("remote reader \(name) removed") }
    dock.changes.mark([.devices, .status, .readers])
    return removed
  }

  private func startReader(_ name: String) {
    generation += 1
    let current = generation
    let key: ReaderKey
    let broker: BrokerSettings
    do {
      guard let text = try dock.state.readerKeys.read(name), let parsed = ReaderKey(hex: text) else {
        holdInert(
          name, generation: current,
          "\(name): its key file is not 64 hex digits; run 'sudo puckctl reader rm \(name)' and add it again")
        return
      }
      key = parsed
      broker = try dock.settings.broker()
    } catch {
      Log.error("remote reader \(name): \(error)")
      holdInert(name, generation: current, "\(name): \(error)")
      dock.changes.mark([.devices, .status, .readers])
      return
    }
    var configuration = RemoteTagReader.Configuration(
      name: name, key: key, dock: dock.settings.dockName, broker: broker)
    configuration.seen = seen(name)
    let files = dock.state.readerKeys
    configuration.remember = { sequence in
      do {
        try files.saveSeen(name, sequence)
      } catch {
        Log.error(
          "remote reader \(name): cannot save which scan was taken (\(error)); a restart could take it again")
      }
    }
    let inbox = dock.loop.inbox
    let reader = makeRemote(configuration) { event in
      // Refusals are what a flood makes (already at most one a minute per kind); a scan or a
      // health change always gets in.
      switch event {
      case .rejected, .redelivered:
        inbox.post(.remoteReader(name, event, generation: current), ifFewerThan: LoopMessage.networkBacklog)
      case .scanned, .removed, .health:
        inbox.post(.remoteReader(name, event, generation: current))
      }
    }
    entries[name] = Entry(
      reader: reader, generation: current,
      health: DeviceHealth(
        .reader, state: .fault, detail: "\(name): waiting for the reader node (broker \(broker.address))"))
    reader.start()
    reader.setEnabled(polling)
    dock.changes.mark([.devices, .status, .readers])
  }

  /// Reader `name` cannot start: it stays a fault in status, saying `why`.
  private func holdInert(_ name: String, generation: Int, _ why: String) {
    entries[name] = Entry(
      reader: InertReader(why), generation: generation,
      health: DeviceHealth(.reader, state: .fault, detail: why))
  }

  /// What earlier runs took from reader `name` (docs/DESIGN.md M3). When that cannot be read,
  /// nothing signed before now is taken: a scan from before cannot be taken twice either way.
  private func seen(_ name: String) -> RemoteSequence {
    do {
      return try dock.state.readerKeys.readSeen(name) ?? RemoteSequence()
    } catch {
      Log.error("remote reader \(name): \(error); taking only messages signed from now on")
      return RemoteSequence(takingOnlyAfter: RemoteTagReader.systemWallMilliseconds())
    }
  }

  /// Polls while a wake-up is open, a pairing or a rehearsal waits for a scan.
  func setPolling(_ enabled: Bool) {
    polling = enabled
    for entry in entries.values { entry.reader.setEnabled(enabled) }
  }

  /// An event of remote reader `name`, made `generation`-th.
  func received(_ event: TagReaderEvent, from name: String, generation: Int) {
    guard var entry = entries[name], entry.generation == generation else { return }
    let reported = ReaderEventLog.record(
      event, remote: name, lastReported: entry.reported, wakeUpIsOpen: wakeUpIsOpen)
    if case .scanned(let uid, let fresh) = event { onScan(uid, fresh, name) }
    if let reported {
      entry.health = reported
      entry.reported = reported
      entries[name] = entry
      dock.changes.mark([.devices, .status, .readers])
    }
  }

  /// The pre-flight check's part for each reader: online or not, as last heard (each is asked
  /// for its health too; a change arrives as an event and re-runs a failed check).
  func check() -> [PreflightReport.Part] {
    names.compactMap { name in
      guard let entry = entries[name] else { return nil }
      let health = Self.current(entry)
      entry.reader.checkHealth()
      return PreflightReport.Part("remote \(name)", ok: health.state == .ok, health.detail)
    }
  }

  /// Whether reader `name` is online, as last heard; nil when there is no such reader.
  func isOnline(_ name: String) -> Bool? {
    entries[name].map { $0.health.state == .ok }
  }

  /// The health of a reader now: its state changes only with a health event, its detail
  /// ("heard 3 s ago") moves on between events.
  private static func current(_ entry: Entry) -> DeviceHealth {
    let now = DeviceHealth(.reader, entry.reader.health)
    return now.state == entry.health.state ? now : entry.health
  }

  func stop() {
    for entry in entries.values { entry.reader.stop() }
  }
}

/// Why a reader could not be enrolled.
enum RemoteReaderError: Error, CustomStringConvertible {
  case noRandomness
  var description: String { "the system's random generator failed; no key was made" }
}

/// Stands in for a remote reader whose key cannot be used: it does nothing, and its health
/// (kept by `RemoteReaders`) says why.
private final class InertReader: TagReader {
  /// Why it does nothing, as status shows it.
  let health: DeviceCondition
  init(_ why: String) { health = DeviceCondition(.fault, why) }
  func start() {}
  func start(after previous: (any TagReader)?) { previous?.requestStop() }
  func requestStop() {}
  func setEnabled(_ enabled: Bool) {}
  func checkHealth() {}
  func checkProgress() -> DeviceCondition? { nil }
  func stop() {}
}
