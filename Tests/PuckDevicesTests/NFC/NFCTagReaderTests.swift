import PN532Emulator
import PuckCore
import PuckSystem
import Testing

@testable import PuckDevices

/// The real libnfc (pn532_uart driver) against an emulated PN532 on a pseudo-terminal.
/// Serialized: libnfc's open holds a process-wide lock, and the fault tests time things.
@Suite("NFC reader through libnfc", .serialized)
struct NFCTagReaderTests {
  init() {
    configureLibNFCForTests()
  }

  private func makeReader(_ rig: EmulatedReader, _ recorder: EventRecorder) -> NFCTagReader {
    NFCTagReader(configuration: .init(connstring: rig.connstring), onEvent: recorder.handler)
  }

  @Test("libnfc opens the emulated PN532 and reads its firmware")
  func opensAndReportsFirmware() throws {
    let rig = try EmulatedReader()
    let device = try NFCDevice(connstring: rig.connstring)
    #expect(device.chip == "PN532 v1.6")
    #expect(device.connstring == rig.connstring)
    // libnfc's pn532_uart open: wake-up + SAMConfiguration, Diagnose echo, GetFirmwareVersion.
    #expect(rig.emulator.count(of: .samConfiguration) >= 1)
    #expect(rig.emulator.count(of: .diagnose) == 1)
    #expect(rig.emulator.count(of: .getFirmwareVersion) == 1)
    #expect(rig.emulator.count(of: .setParameters) == 1)
  }

  @Test("the reader reports itself healthy with chip and connection string")
  func reportsHealth() throws {
    let rig = try EmulatedReader()
    let recorder = EventRecorder()
    let reader = makeReader(rig, recorder)
    defer { reader.stop() }
    reader.start()
    #expect(eventually { reader.health.state == .ok })
    #expect(reader.health.detail == "PN532 v1.6 on \(rig.connstring)")
    #expect(recorder.healths.last == reader.health)

    let before = recorder.healths.count
    reader.checkHealth()
    #expect(eventually { recorder.healths.count > before }, "checkHealth is always answered")
    #expect(recorder.healths.last?.state == .ok)
  }

  @Test("a 7-byte and a 4-byte tag each give one fresh scan while they stay, and a removal")
  func freshScansOnce() throws {
    let rig = try EmulatedReader()
    let recorder = EventRecorder()
    let reader = makeReader(rig, recorder)
    defer { reader.stop() }
    reader.setEnabled(true)
    reader.start()
    // The reader watches for a settled interval before an arrival can be fresh.
    #expect(rig.waitForPolls(6))

    rig.emulator.present(uid: sevenByteUID)
    #expect(eventually { recorder.scans.count == 1 })
    #expect(rig.waitForPolls(5))
    #expect(recorder.scans.count == 1, "a tag lying on the reader is one scan, not one per poll")
    let seven = try TagUID(bytes: sevenByteUID)
    #expect(recorder.scans.first?.0 == seven)
    #expect(recorder.scans.first?.fresh == true)

    rig.emulator.remove()
    #expect(eventually { recorder.removals == 1 })

    rig.emulator.present(uid: fourByteUID)
    #expect(eventually { recorder.scans.count == 2 })
    #expect(rig.waitForPolls(5))
    #expect(recorder.scans.count == 2)
    #expect(try recorder.scans.last?.0 == TagUID(bytes: fourByteUID))
    #expect(recorder.scans.last?.fresh == true)
  }

  @Test("a tag already lying there when polling is enabled is not fresh until presented again")
  func staleTagNotFresh() throws {
    let rig = try EmulatedReader()
    let recorder = EventRecorder()
    let reader = makeReader(rig, recorder)
    defer { reader.stop() }
    rig.emulator.present(uid: sevenByteUID)
    reader.start()
    #expect(eventually { reader.health.state == .ok })
    reader.setEnabled(true)

    #expect(eventually { recorder.scans.count == 1 })
    #expect(recorder.scans.first?.fresh == false)
    #expect(rig.waitForPolls(5))
    #expect(recorder.scans.count == 1)

    rig.emulator.remove()
    #expect(eventually { recorder.removals == 1 })
    rig.emulator.present(uid: sevenByteUID)
    #expect(eventually { recorder.scans.count == 2 })
    #expect(recorder.scans.last?.fresh == true)

    // Disabling and enabling again starts a new baseline: the tag lying there is stale again.
    reader.setEnabled(false)
    #expect(eventually { !rig.emulator.isFieldOn })
    reader.setEnabled(true)
    #expect(eventually { recorder.scans.count == 3 })
    #expect(recorder.scans.last?.fresh == false)
  }

  @Test("a puck and a sticker lying together, answering in turn, never give a fresh scan of the puck")
  func twoTagsInTheField() throws {
    let rig = try EmulatedReader()
    let recorder = EventRecorder()
    let reader = makeReader(rig, recorder)
    defer { reader.stop() }
    rig.emulator.present(uid: sevenByteUID)
    rig.emulator.add(uid: fourByteUID)
    reader.start()
    #expect(eventually { reader.health.state == .ok })
    reader.setEnabled(true)
    #expect(rig.waitForPolls(20))
    let puck = try TagUID(bytes: sevenByteUID)
    #expect(recorder.scans.contains { $0.0 == puck }, "the puck is seen")
    #expect(!recorder.scans.contains { $0.0 == puck && $0.fresh }, "\(recorder.all)")
  }

  @Test("a disabled reader has its field off and is not polled")
  func disabledNotPolled() throws {
    let rig = try EmulatedReader()
    let recorder = EventRecorder()
    let reader = makeReader(rig, recorder)
    defer { reader.stop() }
    reader.start()
    #expect(eventually { reader.health.state == .ok && rig.emulator.count(of: .powerDown) >= 1 })
    #expect(!rig.emulator.isFieldOn)
    #expect(rig.emulator.count(of: .inListPassiveTarget) == 0)

    reader.setEnabled(true)
    #expect(rig.waitForPolls(3))
    #expect(rig.emulator.isFieldOn)

    reader.setEnabled(false)
    #expect(eventually { !rig.emulator.isFieldOn })
    let polls = rig.emulator.count(of: .inListPassiveTarget)
    rig.emulator.present(uid: sevenByteUID)
    // Watch for a while (seven poll intervals): nothing may poll a disabled reader.
    #expect(!eventually(within: .milliseconds(700)) { rig.emulator.count(of: .inListPassiveTarget) != polls })
    #expect(!rig.emulator.isFieldOn)
    #expect(recorder.scans.isEmpty)
  }

  @Test("a reader that goes silent is reported faulty within seconds, and healthy once it answers")
  func silentReaderFaults() throws {
    let rig = try EmulatedReader()
    let recorder = EventRecorder()
    let reader = makeReader(rig, recorder)
    reader.setEnabled(true)
    reader.start()
    #expect(eventually { reader.health.state == .ok })
    #expect(rig.waitForPolls())

    rig.emulator.goSilent()
    let silentAt = MonotonicInstant.now()
    #expect(eventually(within: .seconds(5)) { reader.health.state == .fault })
    #expect(MonotonicInstant.now() - silentAt < .seconds(4))
    #expect(reader.health.detail.contains("stopped answering"))
    #expect(recorder.healths.last?.state == .fault)
    #expect(reader.checkProgress() == nil, "the thread keeps making progress while the reader is dead")

    rig.emulator.revive()
    reader.checkHealth()
    #expect(eventually(within: .seconds(5)) { reader.health.state == .ok })
    rig.emulator.present(uid: fourByteUID)
    #expect(eventually { recorder.scans.count == 1 })

    let stopping = MonotonicInstant.now()
    reader.stop()
    #expect(MonotonicInstant.now() - stopping < .seconds(2), "the thread never hangs in libnfc")
  }

  @Test("a serial device that disappears and comes back on the same path is reopened")
  func killedAndRestarted() throws {
    let rig = try EmulatedReader()
    let recorder = EventRecorder()
    let reader = makeReader(rig, recorder)
    defer { reader.stop() }
    reader.setEnabled(true)
    reader.start()
    #expect(eventually { reader.health.state == .ok })

    rig.emulator.kill()
    #expect(eventually(within: .seconds(5)) { reader.health.state == .fault })
    try rig.emulator.restart()
    #expect(eventually(within: .seconds(8)) { reader.health.state == .ok })
    // Back from a fault, the reader watches for a settled interval before trusting an arrival.
    #expect(rig.waitForPolls(6))

    rig.emulator.present(uid: sevenByteUID)
    #expect(eventually { recorder.scans.count == 1 })
    #expect(recorder.scans.first?.fresh == true)
  }

  @Test("a serial path where nothing is gives a fault that says what to check")
  func missingDevice() throws {
    let connstring = "pn532_uart:/tmp/puck-nfc-nothing-here/ttyPN532"
    #expect(throws: NFCError.self) { try NFCDevice(connstring: connstring) }
    let recorder = EventRecorder()
    let reader = NFCTagReader(configuration: .init(connstring: connstring), onEvent: recorder.handler)
    defer { reader.stop() }
    reader.start()
    #expect(eventually { recorder.healths.count >= 1 })
    #expect(reader.health.state == .fault)
    #expect(reader.health.detail.contains("does not exist"))
  }

  @Test("the watchdog reports a thread that stopped making progress, once")
  func watchdog() throws {
    let rig = try EmulatedReader()
    let recorder = EventRecorder()
    let reader = makeReader(rig, recorder)
    defer { reader.stop() }
    reader.start()
    #expect(eventually { reader.health.state == .ok })
    #expect(reader.checkProgress() == nil)
    // Let the thread settle into its idle wait (field off, chip powered down), so that no
    // event of its own lands between the two checks below.
    #expect(eventually { rig.emulator.isPoweredDown })
    let settled = recorder.healths.count
    #expect(eventually(within: .milliseconds(300)) { recorder.healths.count != settled } == false)

    let later = MonotonicInstant.now() + .seconds(10)
    let stalled = try #require(reader.checkProgress(at: later))
    #expect(stalled.state == .fault)
    #expect(stalled.detail.contains("stuck"))
    let reports = recorder.healths.count
    #expect(reader.checkProgress(at: later) != nil)
    #expect(recorder.healths.count == reports, "a stall is announced once")
    #expect(recorder.healths.last == stalled)

    // The thread is in fact alive: its next iteration announces it is healthy again.
    #expect(eventually { reader.health.state == .ok })
  }
}
