import Foundation
import Glibc
import PuckCore
import PuckStorage
import Testing

@Suite struct ConfigFileTests {
  @Test func missingFileMeansDefaults() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    #expect(try ConfigFile.load(scratch.path + "/puckd.conf") == DockConfig.defaults)
  }

  @Test func readsAndParsesTheFile() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.path + "/puckd.conf"
    try write(Array("[enforcement]\nretry_delay = 90s\n".utf8), toPath: path)
    #expect(try ConfigFile.load(path).enforcement.retryDelay == .seconds(90))
  }

  @Test func errorsNameTheFileAndLine() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.path + "/puckd.conf"
    try write(Array("[enforcement]\n\nretry_delay = 2s\n".utf8), toPath: path)
    do {
      _ = try ConfigFile.load(path)
      Issue.record("a bad file was accepted")
    } catch {
      #expect(error.description == "\(path):3: retry_delay = 2s is below the minimum 5s")
    }
  }

  @Test func unreadableFileIsAnErrorNotDefaults() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    // A directory where the file should be cannot be read as one.
    let path = scratch.path + "/puckd.conf"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    #expect {
      try ConfigFile.load(path)
    } throws: { error in
      guard case .unreadable(let cause) = error as? ConfigFileError else { return false }
      return cause.code == EISDIR && cause.path == path
    }
  }
}
