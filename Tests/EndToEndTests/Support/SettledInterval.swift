import Foundation
import PN532Emulator

/// Waits until puckd has watched `emulator` for a settled interval (TagPresence: 4 polls in a row
/// and 400 ms), with a margin: six polls and 0.6 s. A tag laid down after it is a fresh arrival.
func waitForSettledInterval(
  of emulator: PN532Emulator, _ what: String = "the reader watched a settled interval"
)
  throws
{
  let polls = emulator.count(of: .inListPassiveTarget)
  let start = Date()
  try waitUntil(timeout: 5, what) {
    emulator.count(of: .inListPassiveTarget) >= polls + 6 && Date().timeIntervalSince(start) > 0.6
  }
}
