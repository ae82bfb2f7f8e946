import Glibc
import PN532Emulator
import PuckSystem

// pn532-emulator: a PN532 on a pseudo-terminal for trying the dock by hand.
//
//     swift run pn532-emulator [--link PATH] [--slot-faithful [--baud N] [--attempt-us N] [--activation-us N]]
//
// Prints the path to give libnfc (pn532_uart:PATH), then reads commands on stdin.

let usage = """
  usage: pn532-emulator [--link PATH] [--slot-faithful [--baud N] [--attempt-us N] [--activation-us N]]
    --slot-faithful     answer at a real PN532's pace: the serial line at --baud (default 115200,
                        10 bits a byte) and InListPassiveTarget taking its RF time: an activation
                        attempt no tag answers takes --attempt-us (default 5000), a tag's
                        activation --activation-us (default 3000); see docs/BENCHMARKS.md
  commands on stdin:
    present UID [ATQA SAK]   lay a tag on the antenna (UID like 04:A2:3B:11:22:33:44; ATQA/SAK hex);
                             answers 'tag present at NS', the moment on CLOCK_MONOTONIC
    remove                   take it away
    silent | revive          stop / resume answering (a hung chip)
    kill | restart           close the serial device / open a new one behind the link
    status                   field, tag, command counts
    quit
  """

/// Writes a line to `descriptor` unbuffered, so a script driving the emulator through a pipe
/// sees each answer at once.
func say(_ text: String, to descriptor: Int32 = 1) {
  // A closed output loses the line; the script driving the emulator has gone anyway.
  try? writeAll(Array((text + "\n").utf8), to: descriptor)
}

func hexBytes(_ text: Substring) -> [UInt8]? {
  let digits = text.filter { $0.isHexDigit }
  guard !digits.isEmpty, digits.count % 2 == 0, digits.count == text.filter({ $0 != ":" && $0 != "-" }).count
  else { return nil }
  var bytes: [UInt8] = []
  var index = digits.startIndex
  while index < digits.endIndex {
    let next = digits.index(index, offsetBy: 2)
    guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
    bytes.append(byte)
    index = next
  }
  return bytes
}

func describe(_ emulator: PN532Emulator) -> String {
  let tag = emulator.tag.map { tag in
    tag.uid.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: ":")
  }
  let counts = emulator.commandCounts.sorted { $0.key < $1.key }.map { code, count in
    let name = PN532Command(rawValue: code).map { "\($0)" } ?? "0x" + String(code, radix: 16)
    return "\(name)=\(count)"
  }
  return """
    device \(emulator.ptyPath ?? "(killed)"), field \(emulator.isFieldOn ? "on" : "off"), \
    tag \(tag ?? "none")\(emulator.isSilent ? ", silent" : "")
    commands: \(counts.joined(separator: " "))
    """
}

var arguments = CommandLine.arguments.dropFirst()
var linkPath: String?
var slotFaithful = false
var baudRate = 115_200
var rf = PN532Chip.RFTiming()

/// The positive whole number `text` given to `option`, or the usage and exit 64.
func number(_ text: String?, for option: String) -> Int {
  guard let text, let value = Int(text), value > 0 else {
    say("pn532-emulator: \(option) takes a positive whole number\n" + usage, to: 2)
    exit(64)
  }
  return value
}

while let argument = arguments.popFirst() {
  switch argument {
  case "--link":
    guard let path = arguments.popFirst() else {
      say(usage)
      exit(64)
    }
    linkPath = path
  case "--slot-faithful": slotFaithful = true
  case "--baud": baudRate = number(arguments.popFirst(), for: argument)
  case "--attempt-us": rf.attempt = .microseconds(number(arguments.popFirst(), for: argument))
  case "--activation-us": rf.activation = .microseconds(number(arguments.popFirst(), for: argument))
  default:
    say(usage)
    exit(argument == "--help" || argument == "-h" ? 0 : 64)
  }
}

let emulator: PN532Emulator
do {
  emulator = try PN532Emulator(
    linkPath: linkPath, timing: slotFaithful ? .slotFaithful(baudRate: baudRate, rf: rf) : .instant)
} catch {
  say("pn532-emulator: \(error)", to: 2)
  exit(1)
}
say("PN532 emulator on \(emulator.ptyPath ?? "?"); libnfc connstring: \(emulator.connstring ?? "?")")
if let rf = emulator.timing.rf, let baud = emulator.timing.baudRate {
  say("slot-faithful: \(baud) baud, activation attempt \(rf.attempt), a tag's activation \(rf.activation)")
}
say("type 'help' for commands")

while let line = readLine() {
  let words = line.split(separator: " ", omittingEmptySubsequences: true)
  guard let command = words.first else { continue }
  switch command {
  case "present":
    guard words.count == 2 || words.count == 4, let uid = hexBytes(words[1]), [4, 7, 10].contains(uid.count)
    else {
      say("present UID [ATQA SAK]: UID of 4, 7 or 10 hex bytes")
      continue
    }
    let atqa = words.count == 4 ? UInt16(words[2], radix: 16) : nil
    let sak = words.count == 4 ? UInt8(words[3], radix: 16) : nil
    let at = emulator.present(uid: uid, atqa: atqa, sak: sak)
    say("tag present at \(at.roundedUpNanoseconds)")
  case "remove":
    emulator.remove()
    say("tag removed")
  case "silent":
    emulator.goSilent()
    say("silent")
  case "revive":
    emulator.revive()
    say("answering")
  case "kill":
    emulator.kill()
    say("killed")
  case "restart":
    do {
      try emulator.restart()
      say("restarted on \(emulator.ptyPath ?? "?")")
    } catch {
      say("restart failed: \(error)")
    }
  case "status":
    say(describe(emulator))
  case "quit", "exit":
    emulator.shutdown()
    exit(0)
  default:
    say(usage)
  }
}
emulator.shutdown()
