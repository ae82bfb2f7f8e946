extension DockStatus {
  /// The reasons against, one line each, rendered from `reasonCodes`. A puckd from before the
  /// codes sends only `reasons`, and a code this build does not know keeps the daemon's own
  /// line, so a newer daemon's reason is never dropped from what a person sees.
  public var reasonLines: [String] {
    guard let codes = reasonCodes, codes.count == reasons.count else { return reasons }
    return zip(codes, reasons).map { reason, sent in
      if case .unrecognized = reason { return sent }
      return reason.text
    }
  }
}
