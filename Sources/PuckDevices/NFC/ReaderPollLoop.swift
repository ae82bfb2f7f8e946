import PuckCore
import PuckSystem

/// The reader's thread: opens the device, polls or idles as asked, reports health, reopens
/// with backoff. Owns the `NFCDevice`; runs until a stop is requested.
struct ReaderPollLoop {
  let configuration: NFCTagReader.Configuration
  let control: ReaderControl

  private var device: NFCDevice?
  private var presence: TagPresence
  private var backoff: ReopenBackoff
  private var nextOpen = MonotonicInstant.now()
  /// The enabling the initiator was set up for; nil while idle (field off) or not yet set up.
  private var armedGeneration: Int?
  /// The enabling the presence baseline belongs to.
  private var presenceGeneration: Int?
  /// Whether the field is known to be off since the device was opened.
  private var idleConfirmed = false
  private var lastProbe = MonotonicInstant.now()
  /// Failed calls in a row.
  private var failures = 0

  init(configuration: NFCTagReader.Configuration, control: ReaderControl) {
    self.configuration = configuration
    self.control = control
    presence = TagPresence(
      removalMisses: configuration.removalMisses, settledAbsence: configuration.settledAbsence)
    backoff = ReopenBackoff(
      initial: configuration.initialReopenDelay, maximum: configuration.maximumReopenDelay)
  }

  mutating func run() {
    while true {
      let requests = control.beginIteration()
      if requests.stopRequested { break }
      if device == nil {
        openIfDue(requests)
        guard device != nil else {
          control.wait(min(.seconds(1), max(.zero, nextOpen - .now())))
          continue
        }
      }
      if requests.enabled {
        poll(requests)
        control.wait(configuration.pollInterval)
      } else {
        idle(requests)
        control.wait(min(.seconds(1), max(.zero, lastProbe + configuration.idleHealthInterval - .now())))
      }
    }
    close()
    control.finish()
  }

  // MARK: - Opening

  private mutating func openIfDue(_ requests: ReaderControl.Requests) {
    // A health check is worth an attempt now, whatever the backoff says.
    guard requests.healthRequested || MonotonicInstant.now() >= nextOpen else { return }
    let connstring = configuration.connstring
    do {
      let opened = try control.during("nfc_open") { () throws(NFCError) in
        try NFCDevice(connstring: connstring)
      }
      device = opened
      backoff.reset()
      failures = 0
      armedGeneration = nil
      idleConfirmed = false
      lastProbe = .now()
      control.report(Self.okHealth(opened), force: requests.healthRequested)
    } catch {
      nextOpen = .now() + backoff.delay()
      let detail =
        "cannot open \(connstring ?? "libnfc's default device"): "
        + ReaderTroubleshooting.openFailure(connstring)
      control.report(
        DeviceCondition(.fault, detail), force: requests.healthRequested)
    }
  }

  private static func okHealth(_ device: NFCDevice) -> DeviceCondition {
    let chip = device.chip ?? "reader"
    let name = device.name.isEmpty || device.name == device.connstring ? "" : " (\(device.name))"
    return DeviceCondition(.ok, "\(chip)\(name) on \(device.connstring)")
  }

  // MARK: - Polling

  private mutating func poll(_ requests: ReaderControl.Requests) {
    guard let device else { return }
    if armedGeneration != requests.enableGeneration {
      do {
        try control.during("nfc_initiator_init") { () throws(NFCError) in try device.startInitiator() }
      } catch {
        failed(error)
        return
      }
      armedGeneration = requests.enableGeneration
      idleConfirmed = false
      if presenceGeneration != requests.enableGeneration {
        // A new enabling: what lies on the reader now was there before anyone asked.
        presence.restart()
        presenceGeneration = requests.enableGeneration
      }
    }
    let target: ISO14443ATarget?
    do {
      target = try control.during("nfc_initiator_select_passive_target") { () throws(NFCError) in
        try device.selectISO14443A()
      }
    } catch  where error.isRadioError {
      // The tag moved mid-exchange: no observation this time, and nothing wrong with the reader.
      return
    } catch {
      failed(error)
      return
    }
    succeeded(requests, device)
    var uid: TagUID?
    if let target {
      // A UID of a length ISO 14443-3 does not allow is no tag we could pair: no observation.
      guard let valid = try? TagUID(bytes: target.uid) else { return }
      uid = valid
    }
    for event in presence.observe(uid, at: .now()) {
      control.emit(event)
    }
  }

  // MARK: - Idling

  private mutating func idle(_ requests: ReaderControl.Requests) {
    guard let device else { return }
    if armedGeneration != nil || !idleConfirmed {
      do {
        try control.during("nfc_idle") { () throws(NFCError) in try device.idle() }
      } catch {
        failed(error)
        return
      }
      armedGeneration = nil
      idleConfirmed = true
      lastProbe = .now()
      succeeded(requests, device)
      return
    }
    guard requests.healthRequested || MonotonicInstant.now() - lastProbe >= configuration.idleHealthInterval
    else {
      return
    }
    do {
      // A round trip that leaves the field off: the chip answers, or it does not.
      try control.during("nfc_device_set_property_bool(NP_ACTIVATE_FIELD)") { () throws(NFCError) in
        try device.setField(on: false)
      }
    } catch {
      // Try again soon rather than in a minute: a second failure in a row is a fault.
      lastProbe = .now() - configuration.idleHealthInterval + configuration.pollInterval
      failed(error)
      return
    }
    lastProbe = .now()
    succeeded(requests, device)
  }

  // MARK: - Outcomes

  private mutating func succeeded(_ requests: ReaderControl.Requests, _ device: NFCDevice) {
    failures = 0
    control.report(Self.okHealth(device), force: requests.healthRequested)
  }

  private mutating func failed(_ error: NFCError) {
    failures += 1
    guard failures >= configuration.failuresBeforeFault, let device else { return }
    let connstring = device.connstring
    close()
    presence.interrupt()
    nextOpen = .now() + backoff.delay()
    control.report(
      DeviceCondition(
        .fault,
        "the reader on \(connstring) stopped answering (\(error)): "
          + ReaderTroubleshooting.lostReader(connstring)),
      force: false)
  }

  private mutating func close() {
    guard device != nil else { return }
    // nfc_close releases the target and switches the field off: bounded, but it talks to
    // the chip, so the watchdog should see it.
    control.during("nfc_close") { device = nil }
    armedGeneration = nil
    idleConfirmed = false
    failures = 0
  }
}
