/// The limits on an alarm's label, checked where a label comes in (the control protocol and
/// `puckctl`) and applied where one is read back from disk.
///
/// A count of characters alone does not bound a label: one character (a grapheme) can carry any
/// number of combining marks, so 64 of them can be tens of kilobytes, and every `alarm list`,
/// status line, log line and history entry would repeat it. Hence a byte limit as well.
extension Alarm {
  /// The most characters (extended grapheme clusters) a label may have.
  public static let maximumLabelCharacters = 64
  /// The most bytes of UTF-8 a label may take.
  public static let maximumLabelBytes = 256
  /// The rule in words, for error messages.
  public static let labelRule =
    "a label is one line of at most \(maximumLabelCharacters) characters and \(maximumLabelBytes) bytes "
    + "(UTF-8), without control characters"

  /// Whether `label` is within the limits: one line, no control characters, at most
  /// `maximumLabelCharacters` characters and `maximumLabelBytes` bytes.
  public static func isAcceptableLabel(_ label: String) -> Bool {
    // Bytes first: counting graphemes walks the whole string, so bound it before counting.
    guard label.utf8.count <= maximumLabelBytes else { return false }
    guard !label.unicodeScalars.contains(where: isRefusedInLabel) else { return false }
    return label.count <= maximumLabelCharacters
  }

  /// `label` made acceptable: control and line-break characters become spaces, and it is cut
  /// after the last whole character that fits both limits (so a single character heavier than
  /// `maximumLabelBytes` leaves an empty label).
  ///
  /// For labels read back from `alarms.json` and history, written by hand or by a puckd older
  /// than these limits: the alarm still rings (a wake-up matters more than its name), and what
  /// the daemon shows and sends stays bounded.
  public static func fittingLabel(_ label: String) -> String {
    if isAcceptableLabel(label) { return label }
    var cleaned = String.UnicodeScalarView()
    for scalar in label.unicodeScalars {
      cleaned.append(isRefusedInLabel(scalar) ? " " : scalar)
    }
    var result = ""
    var bytes = 0
    var characters = 0
    for character in String(cleaned) {
      let size = character.utf8.count
      guard characters < maximumLabelCharacters, bytes + size <= maximumLabelBytes else { break }
      result.append(character)
      bytes += size
      characters += 1
    }
    return result
  }

  /// Control characters (C0, DEL, C1) and the Unicode line and paragraph separators.
  private static func isRefusedInLabel(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .lineSeparator, .paragraphSeparator: return true
    default: return false
    }
  }
}
