import Testing

@testable import PuckDevices

/// `ALSAMixer` and `MixerControl` where they run without a card: finding a PCM's control
/// device, the raise arithmetic, and devices with no mixer at all through the real alsa-lib.
/// A card's mixer through the `pulse` control device is `MixerTests`' (end to end).
@Suite struct ALSAMixerTests {
  @Test("a plug device's name leads to its card's control device")
  func plugDevicesFindTheirCard() {
    #expect(ALSAMixer.cardControl(forPCM: "plughw:CARD=Headphones,DEV=0") == "hw:CARD=Headphones")
    #expect(ALSAMixer.cardControl(forPCM: "hdmi:CARD=vc4hdmi0,DEV=0") == "hw:CARD=vc4hdmi0")
    #expect(ALSAMixer.cardControl(forPCM: "plughw:1,0") == "hw:1")
    #expect(ALSAMixer.cardControl(forPCM: "hw:0") == "hw:0")
    #expect(ALSAMixer.cardControl(forPCM: "dmix:CARD=MAX98357A") == "hw:CARD=MAX98357A")
    // Names without arguments find their control device by name or through the opened PCM.
    #expect(ALSAMixer.cardControl(forPCM: "default") == nil)
    #expect(ALSAMixer.cardControl(forPCM: "dmix") == nil)
    #expect(ALSAMixer.cardControl(forPCM: "pulse") == nil)
  }

  @Test(
    "a control is low when muted or any channel is below the floor; raised, it reads back at least the floor")
  func raiseArithmetic() {
    let master = MixerControl(
      name: "Master", switches: [true, false], volumes: [65_536, 0], range: 0...65_536)
    #expect(master.isMuted && master.isBelow(70) && master.percent == 0)
    #expect(master.description == "Master muted, 0 %")
    let raised = master.raised(to: 70)
    #expect(raised.switches == [true, true])
    #expect(raised.volumes[0] == 65_536, "a louder channel is never turned down")
    #expect(raised.volumes[1] == 45_876 && raised.percent == 70)
    #expect(!raised.isBelow(70))
    // A range that does not start at 0, and a control without a volume.
    let offset = MixerControl(name: "PCM", index: 1, switches: [], volumes: [-10_000], range: -10_239...400)
    #expect(offset.isBelow(70) && offset.label == "PCM,1")
    #expect(offset.raised(to: 70).percent == 70)
    let speaker = MixerControl(name: "Speaker", switches: [false], volumes: [], range: 0...0)
    #expect(speaker.isBelow(0) && speaker.description == "Speaker muted")
    #expect(!speaker.raised(to: 100).isBelow(100))
  }

  @Test("a file PCM and a null PCM have no mixer: reported as such, not as a failure")
  func noMixerIsNotAFailure() {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let file = ALSARinger(device: filePCM(writingTo: scratch.file("ring.raw")))
    #expect(file.checkMixer(minimumVolume: 70) == .noMixer)
    let null = ALSARinger(device: ALSADevice(name: "ring", configuration: "pcm.ring { type null }"))
    #expect(null.checkMixer(minimumVolume: 70) == .noMixer)
    #expect(ALSARinger(device: ALSADevice(name: "null")).checkMixer(minimumVolume: 70) == .noMixer)
  }

  @Test("a ring that holds the mixer of a device without one plays as before and reports nothing of it")
  func heldRingOnAFilePCM() {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let log = EventLog()
    var options = ALSARinger.Options()
    options.playLimit = .milliseconds(500)
    let ringer = ALSARinger(
      device: filePCM(writingTo: scratch.file("ring.raw")), options: options, onEvent: log.record)
    ringer.holdMixer(minimumVolume: 70)
    ringer.start(sound: AlarmTone.sound, startVolume: 1, ramp: .zero)
    #expect(ringer.waitUntilStopped(timeout: .seconds(10)))
    ringer.releaseMixer()
    #expect(ringer.waitUntilStopped(timeout: .seconds(10)))
    #expect(log.all == [.playing(device: "ring", sampleRate: 48_000, channels: 1), .finished])
    #expect(samples(readBytes(scratch.file("ring.raw"))).count == 24_000)
  }
}
