import Foundation
import Testing

/// `puck-reader --help` against `man/puck-reader.8`: an option added to the node but not to its
/// man page, or one the man page still names after it went, fails here.
@Suite("puck-reader documents its options")
struct ReaderManPageTests {
  /// The `--options` a text names, roff's `\-` read as `-`.
  private static func options(in text: String) -> Set<String> {
    let plain = text.replacingOccurrences(of: #"\-"#, with: "-")
    var found: Set<String> = []
    var rest = plain[...]
    while let start = rest.range(of: "--") {
      let name = rest[start.upperBound...].prefix { $0.isLetter || $0 == "-" }
      if let first = name.first, first.isLetter { found.insert("--" + name) }
      rest = rest[start.upperBound...]
    }
    return found
  }

  @Test("the man page names every option of --help, and no other")
  func manPageAgreesWithHelp() throws {
    let help = try run("puck-reader", ["--help"])
    #expect(help.status == 0)
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let page = try String(contentsOf: root.appendingPathComponent("man/puck-reader.8"), encoding: .utf8)
    let offered = Self.options(in: help.stdout).union(["--help", "--version"])
    #expect(offered.count > 8, "--help lists the options: \(offered.sorted())")
    #expect(Self.options(in: page) == offered)
  }
}
