extension DockConfig {
  /// The text of a `puckd.conf` with `key` in `[section]` set to `value`, and nothing else
  /// changed: every comment, blank line and other key stays where the builder left it. The
  /// key's line is rewritten where it is set (a note at its end kept); otherwise the new line goes after a commented-out
  /// `# key = …` of that section (the default file's way of showing a default), else at the
  /// end of the section; a missing section is added at the end of the file.
  public static func setting(_ key: String, in section: String, to value: String, text: String) -> String {
    let newline = text.contains("\r\n") ? "\r\n" : "\n"
    var lines = text.components(separatedBy: newline)
    let trailingNewline = lines.last == ""
    if trailingNewline { lines.removeLast() }
    let entry = "\(key) = \(value)"

    var current: String?
    var sectionEnd: Int?
    var commented: Int?
    for (index, raw) in lines.enumerated() {
      let line = strippingComment(raw).trimmingWhitespace()
      if line.hasPrefix("[") && line.hasSuffix("]") {
        if current == section { break }
        current = String(line.dropFirst().dropLast()).trimmingWhitespace()
        if current == section { sectionEnd = index + 1 }
        continue
      }
      guard current == section else { continue }
      if line.isEmpty {
        // A commented-out `# key = …` (or `;key=…`) shows where the key belongs.
        let comment = raw.trimmingWhitespace().drop { $0 == "#" || $0 == ";" || $0 == " " || $0 == "\t" }
        if let equals = comment.firstIndex(of: "="),
          String(comment[..<equals]).trimmingWhitespace() == key
        {
          commented = index
        }
        continue
      }
      sectionEnd = index + 1
      if let equals = line.firstIndex(of: "="), String(line[..<equals]).trimmingWhitespace() == key {
        // The builder's note at the end of the line stays.
        let note = raw.dropFirst(strippingComment(raw).count)
        lines[index] = entry + (note.isEmpty ? "" : "   " + note)
        return lines.joined(separator: newline) + (trailingNewline ? newline : "")
      }
    }
    if let commented {
      lines.insert(entry, at: commented + 1)
    } else if let sectionEnd {
      lines.insert(entry, at: sectionEnd)
    } else {
      if let last = lines.last, !last.trimmingWhitespace().isEmpty { lines.append("") }
      lines += ["[\(section)]", entry]
    }
    return lines.joined(separator: newline) + (trailingNewline || sectionEnd == nil ? newline : "")
  }
}
