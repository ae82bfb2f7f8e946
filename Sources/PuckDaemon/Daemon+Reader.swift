import PuckCore
import PuckDevices

extension Daemon {
  /// Opens the configured libnfc reader on its own thread. In simulate mode there is none, and
  /// a reader that is missing is never replaced by simulation: it is retried and reported.
  func startReader() {
    guard !options.simulate else {
      readerHealth = DeviceHealth(
        name: "reader", state: .simulated, detail: "no reader; scans come from 'puckctl scan UID'")
      return
    }
    let connstring: String?
    switch config.reader.device {
    case .auto, .simulated: connstring = nil
    case .connstring(let text): connstring = text
    }
    let inbox = loop.inbox
    let nfc = NFCTagReader(configuration: .init(connstring: connstring)) { event in
      inbox.post(.reader(event))
    }
    readerHealth = DeviceHealth(name: "reader", state: .fault, detail: "opening \(config.reader.device)…")
    reader = nfc
    nfc.start()
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
