// POSIX TZ strings (the TZ variable, a TZif footer): parse or a ZoneRulesError; rules answer
// every query without trapping.

func fuzzPosixTZ(_ data: UnsafeBufferPointer<UInt8>) {
  let rules: ZoneRules
  do {
    rules = try ZoneRules(posixTZ: text(data))
  } catch {
    _ = error.description
    return
  }
  exerciseZone(rules)
}
