import Foundation
import Testing

/// Issue 13 item 7 end to end: history per wake-up (which puck, which reader, how long after
/// the first ring), `stats` and the CSV export, against a real daemon.
@Suite("history, stats and CSV, end to end", .serialized)
struct HistoryAndStatsTests {
  @Test("a wake-up ended by a simulated scan: its history line, its CSV row and the stats say what happened")
  func oneWakeUp() throws {
    let dock = try DaemonHarness(
      config: "[audio]\ndevice = null\n[enforcement]\nretry_delay = 60s\nstop_after = 5s\n", audio: false)
    try dock.writePairing("04:A2:3B:11:22:33:44")
    try dock.start()
    #expect(try dock.ctl("stats").stdout.contains("no wake-ups yet"))
    _ = try dock.addAlarm(inSeconds: 2, extra: ["--label", "=cmd,\"x\""])
    try waitUntil(timeout: 6, "the alarm rings") { try dock.isRinging() }
    #expect(try dock.stopOnceHeard().status == 0)
    #expect(try dock.ctl("scan", "04:A2:3B:11:22:33:44").stdout.contains("wake-up complete"))

    let history = try dock.ctl("history").stdout
    #expect(history.contains("woke with the puck primary (…:33:44) on simulated, "), "\(history)")
    #expect(history.contains("after the first ring ("), "\(history)")
    #expect(history.contains("; 1 bypass"), "\(history)")

    let csv = try dock.ctl("history", "--csv")
    #expect(csv.status == 0)
    let lines = csv.stdout.split(separator: "\n")
    #expect(
      lines.first
        == "alarm_id,alarm,label,scheduled_at,first_ring,ended_at,outcome,seconds_to_end,bypasses,rings,puck,reader"
    )
    #expect(lines.count == 2, "\(csv.stdout)")
    #expect(
      lines.last?.contains(",\"'=cmd,\"\"x\"\"\",") == true, "the label quoted and defused: \(csv.stdout)")
    #expect(lines.last?.hasSuffix(",woke,") == false)
    #expect(lines.last?.contains(",woke,") == true)
    #expect(lines.last?.hasSuffix(",1,1,primary (…:33:44),simulated") == true, "\(csv.stdout)")
    #expect(try dock.ctl("history", "--csv", "--json").status == 64, "one format at a time")

    let stats = try dock.ctl("stats", "--json")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
    #expect(object["streak"] as? Int == 1)
    #expect(object["scans"] as? Int == 1)
    #expect(object["bypasses"] as? Int == 1)
    let text = try dock.ctl("stats").stdout
    #expect(text.contains("Streak:   1 wake-up in a row ended with the puck"), "\(text)")
    #expect(try dock.ctl("stats", "--weeks", "0").status == 64)
  }
}
