import PuckCore
import PuckStorage

/// The alarm book and `alarms.json`. Every change is saved before it is acknowledged; a change
/// that cannot be saved is rolled back.
final class AlarmStore {
  private let files: StateFiles
  private(set) var book = AlarmBook()

  init(files: StateFiles) {
    self.files = files
  }

  /// The alarms as the schedule sees them: a pause of the whole dock is in each one's
  /// `pausedUntil`.
  var alarms: [Alarm] { book.scheduled }

  func load() {
    book = files.load(AlarmBook.fileName, as: AlarmBook.self) ?? AlarmBook()
  }

  /// `alarms.json` reads again: its alarms replace the stand-in (alarm changes were refused
  /// meanwhile, so nothing made in this run is lost). Returns whether it did.
  func reread() -> Bool {
    guard let loaded = files.reread(AlarmBook.fileName, as: AlarmBook.self) else { return false }
    book = loaded.value ?? AlarmBook()
    Log.notice("state: \(AlarmBook.fileName) can be read again; \(book.alarms.count) alarm(s) loaded")
    return true
  }

  /// Whether `alarms.json` could not be read and is held.
  var isHeld: Bool { files.unreadable.contains(AlarmBook.fileName) }

  /// Applies `change` and saves; on a failed save the book is as it was and the error is thrown.
  @discardableResult
  func change<Result>(_ change: (inout AlarmBook) -> Result) throws(StorageError) -> Result {
    let before = book
    let result = change(&book)
    do {
      try files.save(book, name: AlarmBook.fileName)
    } catch {
      book = before
      throw error
    }
    return result
  }

  /// Disables one-shot alarms that are over (rung or missed); logs a failed save.
  func retire(_ ids: [AlarmID]) {
    let live = ids.filter { id in book.index(of: id).map { book.alarms[$0].enabled } ?? false }
    guard !live.isEmpty else { return }
    do {
      try change { book in
        for id in live {
          if let index = book.index(of: id) { book.alarms[index].enabled = false }
        }
      }
      Log.info("one-shot alarm(s) \(live.map(\.description).joined(separator: ", ")) retired")
    } catch {
      Log.error("could not retire alarm(s) \(live.map(\.description).joined(separator: ", ")): \(error)")
    }
  }

  /// The occurrence of alarm `id` on `date` ended before it rang (docs/DESIGN.md S12): it skips
  /// that date; logs a failed save (the alarm then rings, the loud side).
  func dismiss(_ id: AlarmID, on date: LocalDate) {
    guard let index = book.index(of: id) else { return }
    // One skipped date an alarm: a later one already set (the owner's skip) is kept, and this
    // occurrence rings after all, the loud side.
    if let skipped = book.alarms[index].skippedDate, skipped > date {
      Log.warning("alarm \(id) already skips \(skipped); its occurrence on \(date) rings after all")
      return
    }
    do {
      try change { book in book.alarms[index].skippedDate = date }
    } catch {
      Log.error(
        "could not keep alarm \(id) from ringing on \(date) after the early scan: \(error); it will ring")
    }
  }

  /// A skip applies to one occurrence; once that date has passed it is cleared.
  func consumeSkip(of id: AlarmID, on date: LocalDate) {
    guard let index = book.index(of: id), let skipped = book.alarms[index].skippedDate, skipped <= date else {
      return
    }
    try? change { book in book.alarms[index].skippedDate = nil }
  }
}

extension AlarmBook {
  /// Its file in the state directory.
  static let fileName = "alarms.json"
}
