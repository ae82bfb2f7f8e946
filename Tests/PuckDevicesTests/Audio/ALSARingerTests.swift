import Glibc
import PuckSystem
import Testing

@testable import PuckDevices

/// The ringer against the real alsa-lib, writing to a `file` PCM over a `null` slave. The null
/// slave takes audio as fast as it comes; the ring follows the clock anyway, so a play limit
/// here takes its own length in real time.
@Suite struct ALSARingerTests {
  private func ringer(
    _ device: ALSADevice, playLimit: Duration? = nil,
    retry: RetryBackoff = .standard, log: EventLog
  ) -> ALSARinger {
    var options = ALSARinger.Options()
    options.playLimit = playLimit
    options.retry = retry
    return ALSARinger(device: device, options: options, onEvent: log.record)
  }

  @Test func writesTheBuiltInToneScaledByTheStartVolume() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let output = scratch.file("ring.raw")
    let log = EventLog()
    let ringer = ringer(filePCM(writingTo: output), playLimit: .seconds(1), log: log)
    ringer.start(sound: AlarmTone.sound, startVolume: 0.3, ramp: .seconds(60))
    #expect(ringer.waitUntilStopped(timeout: .seconds(10)))

    #expect(log.all == [.playing(device: "ring", sampleRate: 48_000, channels: 1), .finished])
    #expect(ringer.health == .idle)
    let written = samples(readBytes(output))
    let tone = AlarmTone.sound.samples
    #expect(written.count == 48_000)
    #expect(written.contains { abs(Int($0)) > 5_000 })
    // Over a 60 s ramp the gain is 0.3 + 0.7 * frame / 2_880_000.
    let mismatches = written.indices.filter { frame in
      let gain = 0.3 + 0.7 * Double(frame) / 2_880_000
      return Int(written[frame]) != Int((Double(tone[frame]) * gain).rounded())
    }
    #expect(mismatches.isEmpty)
    // So the ring opens at the start volume.
    #expect((0..<100).allSatisfy { abs(Int(written[$0]) - Int((Double(tone[$0]) * 0.3).rounded())) <= 1 })
  }

  @Test func rampsFromTheStartVolumeToFullOverTheRampsFrames() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let output = scratch.file("ring.raw")
    let log = EventLog()
    let ringer = ringer(filePCM(writingTo: output), playLimit: .seconds(2), log: log)
    // 250 ms at 48 kHz: full volume from frame 12 000 on.
    ringer.start(sound: AlarmTone.sound, startVolume: 0.2, ramp: .milliseconds(250))
    #expect(ringer.waitUntilStopped(timeout: .seconds(10)))

    let written = samples(readBytes(output))
    let tone = AlarmTone.sound.samples
    #expect(written.count == 96_000)
    // The opening of the first beep (gain 0.2 to 0.28) is quieter than the same stretch on
    // the second loop, which plays at full volume.
    let opening = written[0..<1_200].map { abs(Int($0)) }.max() ?? 0
    let looped = written[tone.count..<tone.count + 1_200].map { abs(Int($0)) }.max() ?? 0
    let tonePeak = tone[0..<1_200].map { abs(Int($0)) }.max() ?? 0
    #expect(looped == tonePeak)
    #expect(opening < tonePeak * 3 / 10)
    #expect(opening > tonePeak * 15 / 100)
    // Gain rises through the ramp: the second beep (frames 8160..<14400) straddles its end.
    let early = written[8_160..<9_160].map { abs(Int($0)) }.max() ?? 0
    let late = written[11_000..<12_000].map { abs(Int($0)) }.max() ?? 0
    #expect(early < late)
    // From the ramp's last frame on, the output is the tone itself, looped.
    #expect((12_000..<96_000).allSatisfy { written[$0] == tone[$0 % tone.count] })
    #expect((0..<12_000).contains { written[$0] != tone[$0] })
  }

  @Test("no ramp (a rehearsal, a cue): the level is held at the start volume, never full")
  func aHeldLevelStaysAtTheStartVolume() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let output = scratch.file("ring.raw")
    let ringer = ringer(filePCM(writingTo: output), playLimit: .seconds(2), log: EventLog())
    ringer.start(sound: AlarmTone.sound, startVolume: 0.25, ramp: nil)
    #expect(ringer.waitUntilStopped(timeout: .seconds(10)))

    let written = samples(readBytes(output))
    let tone = AlarmTone.sound.samples
    #expect(written.count == 96_000)
    let off = written.indices.filter {
      abs(Int(written[$0]) - Int((Double(tone[$0 % tone.count]) * 0.25).rounded())) > 1
    }
    #expect(off.isEmpty, "\(off.count) frames not at a quarter of the tone, the first at \(off.first ?? -1)")
  }

  @Test func playsAStereoSoundAtItsOwnRate() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let output = scratch.file("ring.raw")
    let log = EventLog()
    let frames: [Int16] = [100, -100, 200, -200, 300, -300]
    let sound = try #require(PCMSound(sampleRate: 22_050, channels: 2, samples: frames))
    let ringer = ringer(filePCM(writingTo: output), playLimit: .milliseconds(10), log: log)
    ringer.start(sound: sound, startVolume: 1, ramp: .zero)
    #expect(ringer.waitUntilStopped(timeout: .seconds(10)))

    #expect(log.all.first == .playing(device: "ring", sampleRate: 22_050, channels: 2))
    let written = samples(readBytes(output))
    #expect(written.count == 220 * 2)
    #expect(Array(written.prefix(12)) == frames + frames)
  }

  @Test func stopDropsAtOnceAndTheThreadExits() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let output = scratch.file("ring.raw")
    let log = EventLog()
    // The limit only guards the disk if stop() were broken.
    let ringer = ringer(filePCM(writingTo: output), playLimit: .seconds(30), log: log)
    ringer.start(sound: AlarmTone.sound, startVolume: 1, ramp: .zero)
    #expect(eventually { fileSize(output) > 9_600 })
    #expect(ringer.health == .playing(device: "ring"))

    let asked = MonotonicInstant.now()
    ringer.stop()
    #expect(MonotonicInstant.now() - asked < .milliseconds(50))
    #expect(ringer.health == .idle)
    #expect(ringer.waitUntilStopped(timeout: .seconds(1)))
    #expect(MonotonicInstant.now() - asked < .milliseconds(500))
    #expect(log.all.last == .stopped)

    let sizeAfterStop = fileSize(output)
    #expect(sizeAfterStop < 48_000 * 2 * 5)
    usleep(50_000)
    #expect(fileSize(output) == sizeAfterStop)
  }

  @Test func aMissingDeviceIsReportedAndRetriedUntilStopped() throws {
    let log = EventLog()
    let ringer = ringer(
      ALSADevice(name: "nosuchdevice"),
      retry: RetryBackoff(initial: .milliseconds(5), maximum: .milliseconds(20)), log: log)
    ringer.start(sound: AlarmTone.sound, startVolume: 0.3, ramp: .seconds(60))
    #expect(eventually { log.faults.count >= 4 })

    let faults = log.faults
    #expect(faults.prefix(4).map(\.attempt) == [1, 2, 3, 4])
    #expect(
      faults.prefix(4).map(\.retryIn) == [
        .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(20),
      ])
    #expect(faults.allSatisfy { $0.device == "nosuchdevice" && $0.error.function == "snd_pcm_open" })
    guard case .faulted(let fault) = ringer.health else {
      Issue.record("health is \(ringer.health), not faulted")
      return
    }
    #expect(fault.error.code == -ENOENT)

    ringer.stop()
    #expect(ringer.waitUntilStopped(timeout: .seconds(1)))
    #expect(ringer.health == .idle)
    #expect(log.all.last == .stopped)
    let attempts = log.faults.count
    usleep(60_000)
    #expect(log.faults.count == attempts)
  }

  @Test func aSecondStartWhileRingingKeepsTheFirstRing() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let log = EventLog()
    let ringer = ringer(
      filePCM(writingTo: scratch.file("ring.raw")), playLimit: .seconds(30), log: log)
    ringer.start(sound: AlarmTone.sound, startVolume: 1, ramp: .zero)
    ringer.start(sound: AlarmTone.sound, startVolume: 1, ramp: .zero)
    #expect(eventually { ringer.health == .playing(device: "ring") })
    ringer.stop()
    #expect(ringer.waitUntilStopped(timeout: .seconds(1)))
    #expect(log.all.filter { if case .playing = $0 { true } else { false } }.count == 1)

    // And after a stop, a new ring starts.
    ringer.start(sound: AlarmTone.sound, startVolume: 1, ramp: .zero)
    #expect(eventually { ringer.health == .playing(device: "ring") })
    ringer.stop()
    #expect(ringer.waitUntilStopped(timeout: .seconds(1)))
  }

  /// Issue 8 item 14: a `null` PCM never blocks, so a ring that relies on the device to pace it
  /// writes millions of frames a second and spins a core. The ring must follow the clock
  /// whatever the device does. Generous bounds: a behaviour check, not a benchmark.
  @Test func aRingOnANullDeviceFollowsTheClockAndSleeps() throws {
    let log = EventLog()
    // No play limit: a `null` PCM keeps nothing, so an unpaced ring costs CPU, not disk.
    let ringer = ALSARinger(
      device: ALSADevice(name: "ring", configuration: "pcm.ring { type null }"), onEvent: log.record)
    let started = MonotonicInstant.now()
    ringer.start(sound: AlarmTone.sound, startVolume: 1, ramp: .zero)
    usleep(2_000_000)
    ringer.stop()
    #expect(ringer.waitUntilStopped(timeout: .seconds(2)))
    let elapsed = MonotonicInstant.now() - started
    let statistics = try #require(ringer.latestRingStatistics)
    let realTimeFrames =
      Double(AlarmTone.sampleRate) * Double(elapsed.components.seconds)
      + Double(AlarmTone.sampleRate) * Double(elapsed.components.attoseconds) / 1e18
    // Real time plus the buffer the ring may run ahead (well under a second).
    #expect(Double(statistics.framesWritten) < realTimeFrames + Double(AlarmTone.sampleRate))
    #expect(Double(statistics.framesWritten) > realTimeFrames / 2, "the ring kept playing")
    let cpu = try #require(statistics.threadCPUTime)
    #expect(cpu < elapsed / 4, "the ring thread used \(cpu) of CPU in \(elapsed)")
    #expect(log.faults.isEmpty)
  }

  @Test func checkDeviceOpensAndClosesOrSaysWhy() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    try ALSARinger(device: filePCM(writingTo: scratch.file("check.raw"))).checkDevice()
    #expect(throws: ALSAError.self) { try ALSARinger(device: ALSADevice(name: "nosuchdevice")).checkDevice() }
  }
}
