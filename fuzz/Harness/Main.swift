// libFuzzer entry points for PuckCore's parsers of outside input.
//
// Compiled into the PuckCore module itself (see fuzz/run), so harnesses reach internals
// without @testable. One binary serves every target: the target is picked by the environment
// variable PUCK_FUZZ_TARGET, or else by the binary's name (`fuzz-tzif` → `tzif`), which
// fuzz/run sets up as symlinks. Each target lives in its own Fuzz*.swift file.

#if canImport(Glibc)
  import Glibc
#endif

/// The fuzz targets by name.
let fuzzTargets: [String: (UnsafeBufferPointer<UInt8>) -> Void] = [
  "controlwire": fuzzControlWire,
  "config": fuzzConfig,
  "taguid": fuzzTagUID,
  "tzif": fuzzTZif,
  "posixtz": fuzzPosixTZ,
  "document": fuzzDocument,
  "calendar": fuzzCalendar,
  "history": fuzzHistory,
  "sound": fuzzSound,
]

nonisolated(unsafe) var selectedTarget: ((UnsafeBufferPointer<UInt8>) -> Void)?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
  _ argc: UnsafeMutablePointer<Int32>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
  var name = ""
  if let env = getenv("PUCK_FUZZ_TARGET") {
    name = String(cString: env)
  } else if let argv0 = argv.pointee?.pointee {
    let path = String(cString: argv0)
    let base = path.split(separator: "/").last.map(String.init) ?? path
    if base.hasPrefix("fuzz-") { name = String(base.dropFirst(5)) }
  }
  guard let target = fuzzTargets[name] else {
    let known = fuzzTargets.keys.sorted().joined(separator: ", ")
    fputs("puck-fuzz: set PUCK_FUZZ_TARGET (or run via a fuzz-<target> link) to one of: \(known)\n", stderr)
    exit(2)
  }
  selectedTarget = target
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let buffer = UnsafeBufferPointer(start: size == 0 ? nil : data, count: size)
  selectedTarget!(buffer)
  return 0
}

/// Fails the run (a crash libFuzzer records) when a parser breaks one of its own promises.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition {
    fputs("puck-fuzz: invariant violated: \(message())\n", stderr)
    abort()
  }
}

/// The input as text the way the daemon reads files and lines: UTF-8, invalid bytes replaced.
func text(_ data: UnsafeBufferPointer<UInt8>) -> String {
  String(decoding: data, as: UTF8.self)
}
