import PuckCore
import PuckDevices

extension Daemon {
  /// Opens the configured libnfc reader on its own thread. In simulate mode there is none, and
  /// a reader that is missing is never replaced by simulation: it is retried and reported.
  /// A reader it replaces is stopped off the loop thread (see `NFCTagReader.start(after:)`).
  func startReader(replacing previous: NFCTagReader? = nil) {
    guard !options.simulate else {
      readerHealth = DeviceHealth(
        .reader, state: .simulated, detail: "no reader; scans come from 'puckctl scan UID'")
      return
    }
    let connstring: String?
    switch config.reader.device {
    case .auto, .simulated: connstring = nil
    case .connstring(let text): connstring = text
    }
    let inbox = loop.inbox
    readerGeneration += 1
    let generation = readerGeneration
    let nfc = NFCTagReader(configuration: .init(connstring: connstring)) { event in
      inbox.post(.reader(event, generation: generation))
    }
    readerHealth = DeviceHealth(.reader, state: .fault, detail: "opening \(config.reader.device)…")
    reader = nfc
    nfc.start(after: previous)
  }

  /// Applies `[reader] device` after SIGHUP. Simulation and a real reader are chosen at
  /// start-up only: switching on a reload would either drop the protection of a real reader
  /// for simulated scans or start enforcing halfway through with state (pairing, baselines)
  /// made for the other mode. So a reload that asks to switch keeps the current mode, logs an
  /// error and shows a config problem in status until puckd is restarted or the config is put
  /// back. A new connstring for the real reader is applied: the new reader opens once the old
  /// one has closed, without the loop thread waiting for it.
  func reloadReader(from before: ReaderDevice) {
    guard !simulateFlag else {
      // As at start-up: `--simulate` wins over whatever `[reader] device` says.
      if before != config.reader.device {
        Log.notice("SIGHUP: [reader] device is not used: puckd runs with --simulate")
      }
      return
    }
    let wantsSimulated = config.reader.device == .simulated
    if wantsSimulated != options.simulate {
      let problem =
        options.simulate
        ? "config: [reader] device = \(config.reader.device) asks for a real reader, but this puckd runs "
          + "SIMULATED (started with device = simulated); restart puckd to use the reader — until "
          + "then nothing enforces the wake-up"
        : "config: [reader] device = simulated cannot take effect on a reload; the real reader "
          + "(\(before)) stays — restart puckd to run simulated"
      // A config that did not parse keeps its own problem line too.
      configProblem = [configProblem, problem].compactMap { $0 }.joined(separator: "; ")
      Log.error("SIGHUP: \(problem) (restart puckd to switch modes)")
      return
    }
    guard before != config.reader.device, !options.simulate else { return }
    Log.notice("SIGHUP: [reader] device changed from \(before) to \(config.reader.device); reopening")
    startReader(replacing: reader)
    updateReaderPolling()
  }

  func readerEvent(_ event: TagReaderEvent) {
    switch event {
    case .scanned(let uid, let fresh):
      Log.info("reader: tag \(uid.masked)\(fresh ? "" : " (was already on the reader)")")
      tagScanned(uid, fresh: fresh)
    case .removed:
      Log.info("reader: tag removed")
    case .health(let health):
      if health != readerHealth {
        if health.state == .ok {
          Log.notice("reader: \(health.detail)")
        } else {
          Log.error("reader: \(health.detail)\(machine.guards.isEmpty ? "" : " — the ring goes on")")
        }
      }
      readerHealth = health
      updateStatus()
    }
  }

  /// The reader polls (RF field on) only while a wake-up is open or a pairing waits for a tag.
  func updateReaderPolling() {
    reader?.setEnabled(!machine.guards.isEmpty || pairing != nil)
  }
}
