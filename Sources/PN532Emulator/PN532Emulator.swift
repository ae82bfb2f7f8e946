import Glibc
import PuckSystem
import Synchronization

/// A PN532 on a pseudo-terminal, speaking the HSU frames libnfc's `pn532_uart` driver sends,
/// so the real libnfc can be tested without a reader: open `pn532_uart:<path>`.
///
/// Tests lay tags on it (`present`, `add` for several at once, `remove`), make it die in the
/// ways readers die (`goSilent`: the chip stops answering; `answerSlowly`: every call drags on;
/// `kill`: the serial device disappears) and bring it back (`revive`, `restart` behind the same
/// symlink), and count the commands it received.
///
/// Synchronisation: `Sendable` without `@unchecked`. Everything mutable — the chip, the
/// counters, the requests to the read thread — is in one `Mutex`. The pseudo-terminal's
/// descriptors belong to the read thread alone; other threads ask it to swap or close them
/// through the mutex and wait until it has.
public final class PN532Emulator: Sendable {
  /// The stable path given at creation (a symlink to the current pseudo-terminal), if any.
  public let linkPath: String?
  private let shared = Shared()
  /// Wakes the read thread when the field changes, so a command waiting for a tag answers at once.
  private let fieldChanged: Wakeup

  /// The state shared with the read thread; a class so the thread can hold it without holding
  /// the emulator (whose `deinit` stops the thread).
  final class Shared: Sendable {
    private let mutex = Mutex(SharedState())

    /// Results are Sendable values: Swift 6.0 cannot prove a generic result disconnected, so
    /// `sending` would not compile there.
    func withLock<Result: Sendable>(_ body: (inout SharedState) -> Result) -> Result {
      mutex.withLock { state in body(&state) }
    }
  }

  /// What the read thread is asked to do with its pseudo-terminal.
  enum Request: Sendable {
    case adopt(PseudoTerminal)
    case close
    case stop
  }

  struct SharedState: Sendable {
    var chip = PN532Chip()
    var silent = false
    /// Pause between the bytes of each answer, while set.
    var byteDelay: Duration?
    var counts: [UInt8: Int] = [:]
    var acks = 0
    var nacks = 0
    var damaged = 0
    var lastResponse: [UInt8] = []
    /// The code of the last command, for the response to one that waited.
    var pendingCode: UInt8 = 0
    var ptyPath: String?
    var request: Request?
    var stopped = false

    /// The read thread took the new pseudo-terminal at `path`: the chip starts over in its
    /// power-on state, keeping the tags and the counters.
    mutating func adopted(_ path: String) {
      let rfTiming = chip.rfTiming
      chip = PN532Chip(tags: chip.tags)
      chip.rfTiming = rfTiming
      lastResponse = []
      ptyPath = path
      request = nil
    }

    /// The read thread closed its pseudo-terminal.
    mutating func closed() {
      ptyPath = nil
      request = nil
    }

    /// The read thread ends.
    mutating func stop() {
      closed()
      stopped = true
    }

    /// The answer of a command that waited (a listing until a tag comes, InAutoPoll's rounds),
    /// when it is due at `now`; nil while silent or not yet due.
    mutating func resumed(at now: Duration) -> [UInt8]? {
      guard !silent, let reply = chip.resume(at: now) else { return nil }
      return response(reply, code: pendingCode)
    }

    /// What the chip sends back for one host frame: an ACK and the response, the last response
    /// again for a NACK, nothing while silent or for an ACK (nothing runs long enough to abort).
    mutating func answer(_ frame: HostFrame, at now: Duration) -> [UInt8] {
      switch frame {
      case .command(let bytes):
        if let code = bytes.first { counts[code, default: 0] += 1 }
        guard !silent else { return [] }
        pendingCode = bytes[0]
        return HSUFrame.ack + response(chip.handle(bytes, at: now), code: bytes[0])
      case .ack:
        // An ACK from the host aborts a command still going on.
        acks += 1
        chip.abort()
        return []
      case .nack:
        nacks += 1
        return silent ? [] : lastResponse
      case .damaged:
        damaged += 1
        return []
      }
    }

    /// The response frame for the chip's answer to the command `code`, kept for a NACK.
    private mutating func response(_ reply: PN532Chip.Reply, code: UInt8) -> [UInt8] {
      let response: [UInt8]
      switch reply {
      case .response(let data): response = HSUFrame.information([code &+ 1] + data, tfi: HSUFrame.chipToHost)
      case .syntaxError: response = HSUFrame.syntaxError
      case .waiting: return []
      }
      lastResponse = response
      return response
    }
  }

  /// How fast it answers: `.instant` (the default, which the tests rely on) or
  /// `.slotFaithful()`, at a real chip's pace.
  public let timing: Timing

  /// Opens a pseudo-terminal, points `linkPath` (when given) at it, and starts answering, at
  /// once or as `timing` says.
  public init(linkPath: String? = nil, timing: Timing = .instant) throws(PN532EmulatorError) {
    self.linkPath = linkPath
    self.timing = timing
    fieldChanged = Wakeup.bestEffort()
    let pty = try PseudoTerminal.open()
    do {
      if let linkPath { try pointSymlink(linkPath, at: pty.path) }
      shared.withLock { state in
        state.ptyPath = pty.path
        state.chip.rfTiming = timing.rf
      }
      let shared = self.shared
      let fieldChanged = self.fieldChanged
      let baudRate = timing.baudRate
      try SystemThread.detach { Self.run(pty, shared, fieldChanged, baudRate: baudRate) }
    } catch {
      pty.close()
      if let linkPath { unlink(linkPath) }
      throw error
    }
  }

  deinit {
    shutdown()
  }

  /// The path a client should open: the symlink when there is one, else the current
  /// pseudo-terminal (nil while killed).
  public var path: String? {
    linkPath ?? ptyPath
  }

  /// The libnfc connection string for this emulator, `pn532_uart:<path>`.
  public var connstring: String? {
    path.map { "pn532_uart:" + $0 }
  }

  /// The current pseudo-terminal's slave path (`/dev/pts/N`), nil while killed.
  public var ptyPath: String? {
    shared.withLock { $0.ptyPath }
  }

  /// Lays a tag on the antenna (replacing any other). Without `atqa`/`sak`, defaults by UID
  /// length (see `EmulatedTag`). Returns the moment the tag entered the field
  /// (`CLOCK_MONOTONIC`, from boot), which benchmarks time the reader from.
  @discardableResult
  public func present(uid: [UInt8], atqa: UInt16? = nil, sak: UInt8? = nil) -> Duration {
    let tag = EmulatedTag(uid: uid, atqa: atqa, sak: sak)
    let at = changeField { $0.tag = tag }
    fieldChanged.signal()
    return at
  }

  /// Changes the tags in the field under the lock, noting when (the chip's slot-faithful
  /// listing ignores a change its attempt started before): the moment, monotonic.
  private func changeField(_ change: @Sendable (inout PN532Chip) -> Void) -> Duration {
    shared.withLock { state in
      let now = Self.now()
      change(&state.chip)
      state.chip.fieldChangedAt = now
      return now
    }
  }

  /// Lays another tag in the field next to those already there (a sticker beside the puck).
  /// With several tags, each InListPassiveTarget lists one of them, in turn.
  public func add(uid: [UInt8], atqa: UInt16? = nil, sak: UInt8? = nil) {
    let tag = EmulatedTag(uid: uid, atqa: atqa, sak: sak)
    _ = changeField { chip in
      if !chip.tags.contains(where: { $0.uid == tag.uid }) { chip.tags.append(tag) }
    }
    fieldChanged.signal()
  }

  /// Takes the tag with `uid` away, leaving the others.
  public func remove(uid: [UInt8]) {
    _ = changeField { $0.tags.removeAll { $0.uid == uid } }
  }

  /// Takes every tag away.
  public func remove() {
    _ = changeField { $0.tags = [] }
  }

  /// The tag on the antenna, if any (the first, with several).
  public var tag: EmulatedTag? {
    shared.withLock { $0.chip.tag }
  }

  /// The tags in the field.
  public var tags: [EmulatedTag] {
    shared.withLock { $0.chip.tags }
  }

  /// Stops answering anything, ACKs included, while still reading (and counting) what the host
  /// sends: a chip that hung or lost power behind a live serial line.
  public func goSilent() {
    shared.withLock { $0.silent = true }
  }

  /// Trickles every answer a byte at a time with `byteDelay` between bytes (nil: at once): a
  /// chip behind a failing UART whose answers keep coming just quicker than libnfc's timeout,
  /// so each libnfc call runs for seconds instead of failing.
  public func answerSlowly(byteDelay: Duration?) {
    shared.withLock { $0.byteDelay = byteDelay }
  }

  /// Answers again after `goSilent`.
  public func revive() {
    shared.withLock { $0.silent = false }
  }

  /// Whether the emulator currently ignores the host.
  public var isSilent: Bool {
    shared.withLock { $0.silent }
  }

  /// Closes the pseudo-terminal (a client's descriptor hangs up) and removes the symlink, as
  /// when a USB serial adapter is pulled. Returns when it is closed.
  public func kill() {
    send(.close)
    if let linkPath { unlink(linkPath) }
  }

  /// Opens a new pseudo-terminal and points the symlink at it, as when the adapter is plugged
  /// back in (the device number changes, the stable path does not). The chip starts over in
  /// its power-on state; the tag and the counters are kept.
  public func restart() throws(PN532EmulatorError) {
    let pty = try PseudoTerminal.open()
    send(.adopt(pty))
    if let linkPath { try pointSymlink(linkPath, at: pty.path) }
  }

  /// Stops the read thread, closes the pseudo-terminal and removes the symlink. Idempotent.
  public func shutdown() {
    let alreadyStopped = shared.withLock { $0.stopped }
    guard !alreadyStopped else { return }
    send(.stop)
    if let linkPath { unlink(linkPath) }
  }

  /// How many frames carrying `command` arrived (including those ignored while silent).
  public func count(of command: PN532Command) -> Int {
    shared.withLock { $0.counts[command.rawValue] ?? 0 }
  }

  /// Every command code received, with how many times.
  public var commandCounts: [UInt8: Int] {
    shared.withLock { $0.counts }
  }

  /// ACK frames the host sent (libnfc sends one to abort a command).
  public var acksReceived: Int {
    shared.withLock { $0.acks }
  }

  /// NACK frames the host sent.
  public var nacksReceived: Int {
    shared.withLock { $0.nacks }
  }

  /// Frames dropped for a bad length, checksum or frame identifier.
  public var damagedFrames: Int {
    shared.withLock { $0.damaged }
  }

  /// Whether the RF field is on (InListPassiveTarget switches it on; libnfc's `nfc_idle`
  /// switches it off).
  public var isFieldOn: Bool {
    shared.withLock { $0.chip.fieldOn }
  }

  /// Whether the last command put the chip to sleep (PowerDown).
  public var isPoweredDown: Bool {
    shared.withLock { $0.chip.poweredDown }
  }

  /// Hands a request to the read thread and waits (up to 2 s) until it has been carried out.
  private func send(_ request: Request) {
    let deadline = MonotonicInstant.now() + .seconds(2)
    // One request at a time: wait for an earlier caller's to finish.
    while MonotonicInstant.now() < deadline {
      let posted = shared.withLock { state -> Bool in
        guard !state.stopped else { return true }
        guard state.request == nil else { return false }
        state.request = request
        return true
      }
      if posted { break }
      Self.pause()
    }
    while MonotonicInstant.now() < deadline {
      let done = shared.withLock { $0.request == nil || $0.stopped }
      if done { return }
      Self.pause()
    }
  }
}
