import PuckCore
import PuckDevices
import PuckSystem

/// What the log says of a reader's events, the same for the dock's own reader (`Readers`) and
/// the remote ones (`RemoteReaders`); only the side effects differ between the two.
enum ReaderEventLog {
  /// Logs `event` of the dock's reader (`remote` nil) or of remote reader `remote`, and returns
  /// the health a health event reports (nil for the other events). A health equal to
  /// `lastReported` is not logged again; a fault says whether the ring goes on.
  static func record(
    _ event: TagReaderEvent, remote: String?, lastReported: DeviceHealth?, wakeUpIsOpen: () -> Bool
  ) -> DeviceHealth? {
    let reader = remote.map { "reader \($0)" } ?? "reader"
    switch event {
    case .scanned(let uid, let fresh):
      Log.info("\(reader): tag \(uid.masked)\(fresh ? "" : " (was already on the reader)")")
    case .removed:
      Log.info("\(reader): tag removed")
    case .rejected(let why):
      Log.warning("\(reader): refused a message: \(why)")
    case .redelivered(let why):
      Log.info("\(reader): \(why)")
    case .health(let condition):
      let reported = DeviceHealth(.reader, condition)
      if reported != lastReported {
        // A remote reader's detail begins with its name (`kitchen: heard 2 s ago`).
        let line = remote == nil ? "reader: \(reported.detail)" : "reader \(reported.detail)"
        if reported.state == .ok {
          Log.notice(line)
        } else {
          Log.error("\(line)\(wakeUpIsOpen() ? " — the ring goes on" : "")")
        }
      }
      return reported
    }
    return nil
  }
}
