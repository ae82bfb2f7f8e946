import Glibc
import Testing

@testable import PuckDevices

@Suite struct ALSAPCMTests {
  @Test func writesFramesThroughAFilePCMOverANullSlave() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let output = scratch.file("out.raw")
    let pcm = try ALSAPCM(device: filePCM(writingTo: output), mode: .blocking)
    try pcm.configure(channels: 2, sampleRate: 48_000, latency: .milliseconds(100))
    let frames: [Int16] = (0..<960).map { Int16($0 - 480) }
    let written = try frames.withUnsafeBufferPointer { try pcm.write($0) }
    try pcm.drain()
    pcm.close()
    #expect(written == 480)
    #expect(samples(readBytes(output)) == frames)
  }

  @Test func nonblockingWriteReportsTheFramesTaken() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let pcm = try ALSAPCM(device: filePCM(writingTo: scratch.file("out.raw")), mode: .nonblocking)
    try pcm.configure(channels: 1, sampleRate: 22_050, latency: .milliseconds(150))
    let frames = [Int16](repeating: 1000, count: 441)
    #expect(try frames.withUnsafeBufferPointer { try pcm.write($0) } == 441)
    #expect(try !pcm.pollDescriptors().isEmpty)
    try pcm.drop()
  }

  @Test func unknownPCMNameFailsWithTheCFunctionAndStrerrorText() {
    #expect {
      _ = try ALSAPCM(device: ALSADevice(name: "nosuchdevice"), mode: .nonblocking)
    } throws: { error in
      guard let error = error as? ALSAError else { return false }
      return error.function == "snd_pcm_open" && error.code == -ENOENT
        && error.message == "No such file or directory"
        && (error.detail ?? "").contains("nosuchdevice")
    }
  }

  @Test func malformedConfigurationTextIsRejectedBySnd_config_load() {
    let device = ALSADevice(name: "ring", configuration: "pcm.ring { type file; slave.pcm {")
    #expect {
      _ = try ALSAPCM(device: device, mode: .nonblocking)
    } throws: { error in
      (error as? ALSAError)?.function == "snd_config_load"
    }
  }

  @Test func aClosedPCMRefusesCallsInsteadOfCrashing() throws {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let pcm = try ALSAPCM(device: filePCM(writingTo: scratch.file("out.raw")), mode: .nonblocking)
    pcm.close()
    pcm.close()
    #expect(throws: ALSAError(code: -EBADFD, function: "snd_pcm_drop")) { try pcm.drop() }
  }
}
