/// One time an alarm rings: the local date it is scheduled for and the instant that is.
public struct Occurrence: Hashable, Sendable, CustomStringConvertible {
  /// The local date the occurrence belongs to (the date `skip` and `missed` talk about). In a
  /// gap the instant may fall later than this date's wall-clock time; see `ZoneRules.instant`.
  public var date: LocalDate
  /// When it rings.
  public var instant: Instant

  /// `2026-03-29 @ 2026-03-29T03:30:00Z`.
  public var description: String { "\(date) @ \(instant)" }
}
