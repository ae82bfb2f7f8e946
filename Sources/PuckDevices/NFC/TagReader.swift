import PuckCore

/// What a tag reader tells its owner. Delivered on the reader's own thread, in order; the
/// handler must not block (the daemon posts each event into its loop).
public enum TagReaderEvent: Hashable, Sendable {
  /// A tag arrived on the reader. `fresh` is false for a tag that may have been lying there
  /// all along: seen before the reader had watched for a settled interval since polling was
  /// enabled (or since it came back after a fault), or back after an absence shorter than that
  /// (another tag answering in turn beside it). It does not count as a scan until it has been
  /// taken away for the settled interval and presented again (docs/DESIGN.md W7). A tag that stays
  /// produces one event, not one per poll.
  case scanned(TagUID, fresh: Bool)
  /// The tag that was on the reader was taken away.
  case removed
  /// The reader's health changed, or was asked for (`checkHealth`): `ok` with the chip and
  /// where it is ("PN532 v1.6 on pn532_uart:/dev/serial0"), or `fault` with what to try.
  case health(DeviceCondition)
  /// A remote reader refused a message (bad signature, replayed, stale, unknown reader): why.
  case rejected(String)
  /// A remote reader got a copy of a message it took, as resent after a reconnect: why.
  case redelivered(String)
}

/// A source of tag scans: the libnfc reader (`NFCTagReader`), or a stand-in for simulation and
/// tests. Events go to the handler given when the reader was made.
public protocol TagReader: AnyObject, Sendable {
  /// Starts the reader's thread: it opens the device, reports its health and then polls or
  /// idles as `setEnabled` says. Call once.
  func start()

  /// Starts in place of `previous` (a reader replaced on reload): asks `previous` to stop and
  /// returns at once; the new reader opens its device once the old one has let go of it.
  func start(after previous: (any TagReader)?)

  /// Asks the reader to stop, close the device and end, and returns at once.
  func requestStop()

  /// Polls for tags (RF field on) while enabled; otherwise the field is off and the reader is
  /// not polled, only probed for health now and then. The daemon enables it while a wake guard
  /// is open or a pairing is waiting for a tag. Each enabling starts a new presence baseline:
  /// a tag already lying there is reported with `fresh: false`.
  func setEnabled(_ enabled: Bool)

  /// Asks the reader to check that it can talk to the device now; the answer comes as a
  /// `.health` event (always, even when unchanged). The daemon asks before each alarm.
  func checkHealth()

  /// The watchdog: nil while the reader's thread keeps making progress; a fault once it has
  /// been stuck (inside a C call, say) for longer than its limit, reported as a `.health`
  /// event the first time. The owner calls it now and then, e.g. on its own watchdog tick.
  func checkProgress() -> DeviceCondition?

  /// The last health the reader reported.
  var health: DeviceCondition { get }

  /// Stops polling, switches the field off, closes the device and ends the thread. Returns
  /// when the thread has finished, or after a few seconds if it is stuck.
  func stop()
}
