// TZif zone files (/usr/share/zoneinfo, or whatever the TZ variable points at): any bytes give
// rules or a ZoneRulesError; rules answer every query without trapping.

func fuzzTZif(_ data: UnsafeBufferPointer<UInt8>) {
  let rules: ZoneRules
  do {
    rules = try ZoneRules(tzif: Array(data), name: "Fuzz/Zone")
  } catch {
    _ = error.description
    return
  }
  exerciseZone(rules)
}
