import Foundation
import PuckCore
import Testing

/// The command table against what a person reads: `puckctl --help`, each command's `--help`
/// and the man page. A command or option added to the table but not documented fails here.
@Suite("puckctl documents the command table")
struct CommandTableDocsTests {
  /// `man/puckctl.1` with the roff escapes a reader does not see taken out, split into its
  /// `.TP` entries, each as whitespace-separated tokens (first line) and its whole text.
  /// Only the section `section` (`COMMANDS`) when given.
  private static func manEntries(section: String? = nil) throws -> [(head: [String], text: String)] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    var text = try String(contentsOf: root.appendingPathComponent("man/puckctl.1"), encoding: .utf8)
    if let section {
      let parts = text.components(separatedBy: "\n.SH ")
      text = parts.first { $0.hasPrefix(section + "\n") } ?? ""
    }
    for escape in [#"\fI"#, #"\fR"#, #"\fB"#, #"\fP"#, "\""] {
      text = text.replacingOccurrences(of: escape, with: " ")
    }
    text = text.replacingOccurrences(of: #"\-"#, with: "-")
    return text.components(separatedBy: "\n.TP\n").dropFirst().map { entry in
      let head = entry.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
      return (head.split(whereSeparator: \.isWhitespace).map(String.init), entry)
    }
  }

  @Test("every command of the table is listed by puckctl --help, with its options in its own --help")
  func helpListsEveryCommand() throws {
    let listing = try run("puckctl", ["--help"])
    #expect(listing.status == 0)
    for spec in CommandTable.all {
      #expect(listing.stdout.contains("  \(spec.synopsis)"), "\(spec.commandLine) in puckctl --help")
      let own = try run("puckctl", spec.words + ["--help"])
      #expect(own.status == 0)
      #expect(own.stdout.contains("usage: "), "\(spec.commandLine) --help")
      for option in spec.optionNames {
        #expect(own.stdout.contains("--\(option)"), "\(spec.commandLine) --help names --\(option)")
      }
    }
  }

  @Test("every command of the table has a man page entry naming its options, and root ones say so")
  func manPageAgrees() throws {
    let entries = try Self.manEntries()
    for spec in CommandTable.all {
      let entry = entries.first { entry in
        entry.head.indices.contains { start in
          Array(entry.head[start...].prefix(spec.words.count)) == spec.words
        }
      }
      guard let entry else {
        Issue.record("man/puckctl.1 has no entry for \(spec.commandLine)")
        continue
      }
      for option in spec.optionNames {
        #expect(
          entry.text.contains("--\(option)"), "man entry of \(spec.commandLine) names --\(option)")
      }
      #expect(entry.text.contains("(root)") == (spec.role == .root), "man entry of \(spec.commandLine): role")
    }
  }

  @Test("every entry of the man page's command list is a command of the table, in the table's order")
  func manPageListsNothingElse() throws {
    let entries = try Self.manEntries(section: "COMMANDS")
    #expect(!entries.isEmpty)
    var order: [Int] = []
    for entry in entries {
      // The words after the roff macro (`.BR`, `.BI`, `.B`).
      let words = Array(entry.head.drop { $0.hasPrefix(".") })
      let index = CommandTable.all.firstIndex { Array(words.prefix($0.words.count)) == $0.words }
      #expect(
        index != nil, "man/puckctl.1 lists '\(words.prefix(2).joined(separator: " "))', not in the table")
      if let index { order.append(index) }
    }
    #expect(order == order.sorted(), "the man page lists the commands in the table's order")
  }
}
