import Foundation
import Glibc
import Testing

@testable import PuckCore

/// Real zone files and real tools (`zic`, GNU `date`), for tests only: the core does no I/O.
enum ZoneFixtures {
  static let zoneinfo = "/usr/share/zoneinfo"

  /// Rules read from `/usr/share/zoneinfo/<name>`.
  static func zone(_ name: String) throws -> ZoneRules {
    try ZoneRules(tzif: try bytes(atPath: "\(zoneinfo)/\(name)"), name: name)
  }

  static func bytes(atPath path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// An instant from ISO 8601 text with an offset, failing the test if it does not parse.
  static func instant(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Instant {
    try #require(Instant(iso8601: text), "bad instant \(text)", sourceLocation: sourceLocation)
  }

  /// A fresh temporary directory.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("puck-tz-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// Runs a program and returns its standard output; throws if it exits non-zero.
  static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env.merge(environment) { _, new in new }
    env["LC_ALL"] = "C"
    process.environment = env
    // Unlinked files, not Foundation's `Pipe` (made without close-on-exec): a pipe end that leaked
    // into a daemon another test starts meanwhile would hold the read here until it exits.
    let output = try unlinkedFile()
    let errors = try unlinkedFile()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    process.waitUntilExit()
    try output.seek(toOffset: 0)
    try errors.seek(toOffset: 0)
    let data = try output.readToEnd() ?? Data()
    let errorData = try errors.readToEnd() ?? Data()
    guard process.terminationStatus == 0 else {
      throw ToolFailure(
        command: "\(path) \(arguments.joined(separator: " "))",
        output: String(decoding: errorData, as: UTF8.self))
    }
    return String(decoding: data, as: UTF8.self)
  }

  /// A new file open for reading and writing whose name is already gone.
  private static func unlinkedFile() throws -> FileHandle {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("puck-tool-\(UUID().uuidString)")
      .path
    let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
    unlink(path)
    return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
  }

  struct ToolFailure: Error, CustomStringConvertible {
    var command: String
    var output: String
    var description: String { "\(command) failed: \(output)" }
  }

  /// What GNU `date` (glibc's own reading of `tz`) says the offset and abbreviation are at each
  /// instant. `tz` is a zone name, a file path with a leading colon, or a POSIX TZ string.
  static func glibcLocalTimes(tz: String, at instants: [Int64]) throws -> [(
    offset: Int, abbreviation: String
  )] {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("instants")
    try instants.map { "@\($0)" }.joined(separator: "\n").write(to: input, atomically: true, encoding: .utf8)
    let output = try run("/usr/bin/date", ["-f", input.path, "+%::z %Z"], environment: ["TZ": tz])
    return try output.split(separator: "\n").map { line in
      let parts = line.split(separator: " ")
      let text = String(parts[0])
      let sign = text.hasPrefix("-") ? -1 : 1
      let fields = text.dropFirst().split(separator: ":").compactMap { Int($0) }
      try #require(fields.count == 3, "unexpected date output \(line)")
      return (sign * (fields[0] * 3600 + fields[1] * 60 + fields[2]), parts.count > 1 ? String(parts[1]) : "")
    }
  }
}
