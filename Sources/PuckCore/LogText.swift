/// Text from outside (the network, a file) made fit for one log line (docs/DESIGN.md M8): at
/// most `limit` characters, control characters shown as `?`, and what was left out counted,
/// so a message of megabytes writes a line of tens of bytes.
public enum LogText {
  /// `text` bounded to `limit` characters; longer text ends in `…(N bytes)`.
  public static func bounded(_ text: some StringProtocol, limit: Int = 64) -> String {
    var shown = ""
    var count = 0
    for character in text {
      guard count < limit else {
        return shown + "…(\(text.utf8.count) bytes)"
      }
      shown.append(
        character.unicodeScalars.contains { $0.properties.generalCategory == .control } ? "?" : character)
      count += 1
    }
    return shown
  }
}
