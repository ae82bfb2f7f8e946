import Foundation

/// Every Swift file of `Sources/PuckDaemon`, by its path under that folder, with its text: for
/// the tests that hold the daemon's sources to a rule (one writer, every back edge wired).
func daemonSources() throws -> [(name: String, text: String)] {
  // This file is Tests/PuckDaemonTests/Support/DaemonSources.swift.
  let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/PuckDaemon")
  guard let files = FileManager.default.enumerator(atPath: sources.path) else {
    throw CocoaError(.fileNoSuchFile)
  }
  var found: [(name: String, text: String)] = []
  for case let name as String in files where name.hasSuffix(".swift") {
    found.append((name, try String(contentsOf: sources.appendingPathComponent(name), encoding: .utf8)))
  }
  return found
}
