import CSndfile
import Foundation
import Glibc
import Testing

/// `[audio] sound` through a real puckd: decoded at start and on SIGHUP, played by a rehearsal
/// into a PulseAudio null sink, and refused loudly (status and log) with the built-in tone in its
/// place.
@Suite("puckd ring sound file", .serialized)
struct RingSoundTests {
  @Test("a FLAC file rings in place of the tone; once it is gone, SIGHUP reports it and the tone rings")
  func flacThenMissing() throws {
    let folder = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("ring.flac").path
    // A quarter of full scale: its peak tells it apart from the built-in tone (0.8 of full scale).
    try #require(writeSine(to: path, seconds: 3, amplitude: 0.25))

    let dock = try DaemonHarness(
      config: "[audio]\ndevice = pulse\nstart_volume = 100%\nramp = 0s\nsound = \(path)\n")
    try dock.start()
    #expect(try (dock.status()["problems"] as? [String] ?? []).isEmpty)
    let filePeak = try rehearsalPeak(dock)
    #expect((5_000...11_000).contains(filePeak), "the FLAC file plays (peak \(filePeak))")

    try FileManager.default.removeItem(atPath: path)
    dock.signal(SIGHUP)
    try waitUntil(timeout: 5, "the reload reports the sound file") {
      dock.log.contains("sound file: \(path)")
    }
    let problems = try dock.status()["problems"] as? [String] ?? []
    #expect(
      problems.contains {
        $0.contains("\(path): cannot read it: No such file or directory")
          && $0.contains("the built-in tone will ring instead")
      }, "\(problems)")
    // Under /tmp (as a file in /home): the packaged service would never see it; the problem
    // says where to keep sounds instead.
    if path.hasPrefix("/tmp/") {
      #expect(problems.contains { $0.contains("the puckd service cannot see") })
    }
    let tonePeak = try rehearsalPeak(dock)
    #expect(tonePeak > 18_000, "the built-in tone plays instead (peak \(tonePeak))")
  }

  @Test("an MP3 file (libsndfile's mpg123 decoder) rings through the real ALSA path into the sink")
  func mp3Rings() throws {
    let folder = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("ring.mp3").path
    try #require(
      writeSine(
        to: path, seconds: 3, amplitude: 0.25, format: Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)))
    let dock = try DaemonHarness(
      config: "[audio]\ndevice = pulse\nstart_volume = 100%\nramp = 0s\nsound = \(path)\n")
    try dock.start()
    #expect(try (dock.status()["problems"] as? [String] ?? []).isEmpty, "the MP3 decodes")
    let check = try dock.ctl("check").stdout
    #expect(check.contains("sound: ok — \(path) loaded (3.0 s, 48000 Hz)"), "\(check)")
    let peak = try rehearsalPeak(dock)
    #expect((5_000...11_000).contains(peak), "the MP3 plays, not the tone (peak \(peak))")
  }

  /// A fresh folder for a sound file.
  private func scratchFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "puck-sound-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  /// Runs `puckctl test --seconds 2` (no scan asked) and returns the loudest sample the sink received meanwhile.
  private func rehearsalPeak(_ dock: DaemonHarness) throws -> Int {
    let rehearsal = Process()
    rehearsal.executableURL = Binaries.url("puckctl")
    rehearsal.arguments = ["--socket", dock.socketPath, "test", "--seconds", "2", "--scan-seconds", "0"]
    rehearsal.standardOutput = FileHandle.nullDevice
    try rehearsal.spawn()
    var peak = 0
    try waitUntil(timeout: 5, "the rehearsal is heard") {
      peak = max(peak, try dock.audio!.peak(seconds: 0.5))
      return peak > 1000
    }
    peak = max(peak, try dock.audio!.peak(seconds: 0.5))
    rehearsal.waitUntilExit()
    try waitUntil(timeout: 3, "the rehearsal stops by itself") { try !dock.audio!.hasStream() }
    return peak
  }

  /// A 48 kHz mono sound file of a 440 Hz sine (FLAC unless `format` says), written by libsndfile.
  private func writeSine(
    to path: String, seconds: Int, amplitude: Double, format: Int32 = Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
  ) -> Bool {
    var info = SF_INFO()
    info.samplerate = 48_000
    info.channels = 1
    info.format = format
    guard let file = sf_open(path, Int32(SFM_WRITE), &info) else { return false }
    defer { sf_close(file) }
    let samples = (0..<48_000 * seconds).map {
      Float(amplitude * sin(2 * Double.pi * 440 * Double($0) / 48_000))
    }
    return sf_writef_float(file, samples, Int64(samples.count)) == Int64(samples.count)
  }
}
