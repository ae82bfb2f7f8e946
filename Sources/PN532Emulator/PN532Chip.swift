/// What the emulated chip does with one command: the pure part of the emulator, with no I/O,
/// so it can be driven directly in tests.
///
/// It answers the commands libnfc 1.8's `pn532_uart` driver and the `pn53x` chip layer send
/// (open: SAMConfiguration, Diagnose, GetFirmwareVersion, SetParameters, Read/WriteRegister,
/// RFConfiguration; polling: InListPassiveTarget, InDeselect, InRelease; idle: InRelease,
/// RFConfiguration, PowerDown) the way a PN532 v1.6 does, and the rest sensibly: commands for a
/// partner that is not there (DEP, target mode) end in the timeout status or a syntax error.
public struct PN532Chip: Sendable {
  /// The answer to one command.
  public enum Reply: Hashable, Sendable {
    /// A response frame's data after its response code (command code + 1).
    case response([UInt8])
    /// The chip's syntax-error frame: it could not make sense of the command.
    case syntaxError
    /// No answer yet: the command goes on in the chip (`pending`) until `resume(at:)` has one.
    case waiting
  }

  /// A command the chip is still carrying out.
  public enum Wait: Hashable, Sendable {
    /// InListPassiveTarget with MxRtyPassiveActivation 0xFF: the chip retries activation until
    /// a tag enters the field, and answers then (UM0701-02 §7.3.1, RFConfiguration item 5).
    case listing(initiatorData: [UInt8])
    /// InAutoPoll: the chip polls the wanted types once a round, a round every `period`
    /// (Period × 150 ms) from `start`, and answers at the first round boundary that finds a
    /// tag, or with no target after `rounds` rounds (nil: PollNr 0xFF, endless).
    case autoPolling(types: [UInt8], start: Duration, period: Duration, nextRound: Int, rounds: Int?)
    /// InListPassiveTarget under `rfTiming`: activation attempt `attempt` (from 0) starts at
    /// `start + rfTiming.attempt × attempt`; the chip answers "no target" at the end of the
    /// last of `attempts` (nil: MxRtyPassiveActivation 0xFF, endless).
    case attempting(initiatorData: [UInt8], start: Duration, attempt: Int, attempts: Int?)
    /// A tag answered an attempt: its listing goes out when its activation (anticollision,
    /// SELECT) is over, at `due`.
    case activating(tag: EmulatedTag, due: Duration)
  }

  /// The tags in the field, in the order anticollision picks them in turn.
  public var tags: [EmulatedTag] = [] {
    didSet { nextTurn = 0 }
  }
  /// Which of `tags` answers the next InListPassiveTarget (or InAutoPoll).
  private var nextTurn = 0
  /// The RF time of InListPassiveTarget (`RFTiming`); nil, the default: a listing answers at
  /// once, as fast as the host can read.
  public var rfTiming: RFTiming?
  /// When `tags` last changed (same clock as `handle(_:at:)`): under `rfTiming`, an activation
  /// attempt that started before it did not see the change.
  public var fieldChangedAt: Duration = .zero
  /// The tag the last listing activated, if it is still in the field.
  public private(set) var listedTag: EmulatedTag?

  /// The tag on the antenna, if any: setting it replaces all others. With several tags, the
  /// first one.
  public var tag: EmulatedTag? {
    get { tags.first }
    set { tags = newValue.map { [$0] } ?? [] }
  }
  /// Whether the RF field is on. InListPassiveTarget switches it on, as the real chip does;
  /// RFConfiguration item 1 and PowerDown switch it off.
  public private(set) var fieldOn = false
  /// Whether the last command was PowerDown (the chip sleeps until the host wakes it).
  public private(set) var poweredDown = false
  /// The CIU and SFR registers written so far, read back by ReadRegister (unwritten ones read 0).
  public private(set) var registers: [UInt16: UInt8] = [:]
  /// The SetParameters flags.
  public private(set) var parameters: UInt8 = 0
  /// The SAM mode from SAMConfiguration (1 normal, 2 virtual card, 3 wired card, 4 dual card).
  public private(set) var samMode: UInt8 = 1
  /// Whether the tag was activated by InListPassiveTarget and not released since.
  public private(set) var targetListed = false

  /// The status bytes of the PN532's response frames (UM0701-02 §7.1).
  enum Status {
    static let success: UInt8 = 0x00
    /// The target did not answer in time.
    static let timeout: UInt8 = 0x01
    /// The command is not acceptable in the current context (no such target, say).
    static let notAcceptable: UInt8 = 0x27
  }

  /// A chip in its power-on state (field off, every register at zero), with `tag` on the antenna.
  public init(tag: EmulatedTag? = nil) {
    tags = tag.map { [$0] } ?? []
  }

  /// A chip in its power-on state with several tags in the field at once.
  public init(tags: [EmulatedTag]) {
    self.tags = tags
  }

  /// The tag that answers this listing, taking turns: a PN532 lists one target per
  /// InListPassiveTarget (MaxTg 1) and, with two tags in the field, anticollision may pick
  /// either; the emulator alternates, the worst case for a host that watches who answers.
  mutating func takeTurn() -> EmulatedTag? {
    guard !tags.isEmpty else { return nil }
    let tag = tags[nextTurn % tags.count]
    nextTurn = (nextTurn + 1) % tags.count
    return tag
  }

  /// The command still going on, if the last one waits (`Reply.waiting`).
  public internal(set) var pending: Wait?
  /// MxRtyPassiveActivation (RFConfiguration item 5): how often InListPassiveTarget retries
  /// activation; 0xFF, the power-on value, retries until a tag comes.
  public private(set) var passiveActivationRetries: UInt8 = 0xFF

  /// Whether the activated target is still in the field.
  private var listedPresent: Bool {
    targetListed && listedTag.map(tags.contains) == true
  }

  /// Runs one command (code first, then parameters) and says what the chip answers; `now` (any
  /// monotonic origin) starts the clock of a command that waits (`Reply.waiting`). A command
  /// cancels one still waiting, as an ACK does (`abort`).
  public mutating func handle(_ command: [UInt8], at now: Duration = .zero) -> Reply {
    pending = nil
    guard let code = command.first else { return .syntaxError }
    let parameters = Array(command.dropFirst())
    poweredDown = false
    guard let known = PN532Command(rawValue: code) else { return .syntaxError }
    switch known {
    case .diagnose: return diagnose(parameters)
    case .getFirmwareVersion: return .response([0x32, 0x01, 0x06, 0x07])  // PN532 v1.6, ISO A, B, 18092
    case .getGeneralStatus: return generalStatus()
    case .readRegister: return readRegisters(parameters)
    case .writeRegister: return writeRegisters(parameters)
    case .readGPIO: return .response([0xFF, 0xFF, 0x00])
    case .writeGPIO, .setSerialBaudRate: return .response([])
    case .setParameters:
      guard let flags = parameters.first else { return .syntaxError }
      self.parameters = flags
      return .response([])
    case .samConfiguration:
      guard let mode = parameters.first, (1...4).contains(mode) else { return .syntaxError }
      samMode = mode
      return .response([])
    case .powerDown:
      guard !parameters.isEmpty else { return .syntaxError }
      fieldOn = false
      poweredDown = true
      return .response([Status.success])
    case .rfConfiguration: return rfConfiguration(parameters)
    case .inListPassiveTarget: return listPassiveTarget(parameters, at: now)
    case .inDataExchange: return dataExchange(parameters)
    case .inCommunicateThru:
      // Raw frames are how libnfc probes type B, ST SRx and iClass cards; the emulated tag is
      // type A and never answers them.
      return .response([Status.timeout])
    case .inDeselect:
      return .response([Status.success])
    case .inRelease:
      targetListed = false
      listedTag = nil
      return .response([Status.success])
    case .inSelect:
      guard targetListed else { return .response([Status.notAcceptable]) }
      return .response([listedPresent ? Status.success : Status.timeout])
    case .inAutoPoll: return autoPoll(parameters, at: now)
    case .inJumpForDEP, .inJumpForPSL, .inATR, .inPSL:
      // No NFC-DEP partner is ever in the field.
      return .response([Status.timeout])
    case .rfRegulationTest, .tgInitAsTarget, .tgSetGeneralBytes, .tgGetData, .tgSetData, .tgSetMetaData,
      .tgGetInitiatorCommand, .tgResponseToInitiator, .tgGetTargetStatus:
      // Target mode is not emulated; a syntax error makes libnfc fail fast instead of waiting.
      return .syntaxError
    }
  }

  private func diagnose(_ parameters: [UInt8]) -> Reply {
    guard let test = parameters.first else { return .syntaxError }
    switch test {
    case 0x00:
      // Communication line test: the chip echoes the test number and the data.
      return .response(parameters)
    case 0x06:
      // Card presence detection.
      return .response([listedPresent ? Status.success : Status.timeout])
    default:
      return .response([Status.success])
    }
  }

  private func generalStatus() -> Reply {
    var status: [UInt8] = [Status.success, fieldOn ? 0x01 : 0x00]
    if listedPresent {
      status += [0x01, 0x01, 0x00, 0x00, 0x00]  // one target, Tg 1, 106 kbps both ways, type A
    } else {
      status.append(0x00)
    }
    status.append(0x00)  // SAM status
    return .response(status)
  }

  private func readRegisters(_ parameters: [UInt8]) -> Reply {
    guard !parameters.isEmpty, parameters.count % 2 == 0 else { return .syntaxError }
    var values: [UInt8] = []
    for index in stride(from: 0, to: parameters.count, by: 2) {
      let address = UInt16(parameters[index]) << 8 | UInt16(parameters[index + 1])
      values.append(registers[address] ?? 0)
    }
    return .response(values)
  }

  private mutating func writeRegisters(_ parameters: [UInt8]) -> Reply {
    guard !parameters.isEmpty, parameters.count % 3 == 0 else { return .syntaxError }
    for index in stride(from: 0, to: parameters.count, by: 3) {
      let address = UInt16(parameters[index]) << 8 | UInt16(parameters[index + 1])
      registers[address] = parameters[index + 2]
    }
    return .response([])
  }

  private mutating func rfConfiguration(_ parameters: [UInt8]) -> Reply {
    guard let item = parameters.first else { return .syntaxError }
    if item == 0x01 {
      // RF field: bit 0 switches it, bit 1 is AutoRFCA.
      guard parameters.count >= 2 else { return .syntaxError }
      fieldOn = parameters[1] & 0x01 != 0
      if !fieldOn {
        targetListed = false
        listedTag = nil
      }
    } else if item == 0x05 {
      // MaxRetries: MxRtyATR, MxRtyPSL, MxRtyPassiveActivation.
      guard parameters.count >= 4 else { return .syntaxError }
      passiveActivationRetries = parameters[3]
    }
    // Timings, retry counts and analog settings are accepted and have no visible effect.
    return .response([])
  }

  private mutating func listPassiveTarget(_ parameters: [UInt8], at now: Duration) -> Reply {
    guard parameters.count >= 2, (1...2).contains(parameters[0]) else { return .syntaxError }
    let baudAndType = parameters[1]
    let initiatorData = Array(parameters.dropFirst(2))
    fieldOn = true
    targetListed = false
    listedTag = nil
    // 0x00 is 106 kbps type A; FeliCa, type B and Jewel never find anything here.
    guard baudAndType == 0x00 else { return .response([0x00]) }
    if let rfTiming { return timedListing(initiatorData, timing: rfTiming, at: now) }
    let answering: EmulatedTag?
    if initiatorData.isEmpty {
      answering = takeTurn()
    } else {
      // Selecting by UID: only that tag answers, wherever it is in the turn.
      answering = tags.first { initiatorData == $0.uid || initiatorData == $0.cascadedUID }
    }
    guard let tag = answering else {
      guard passiveActivationRetries == 0xFF else { return .response([0x00]) }
      pending = .listing(initiatorData: initiatorData)
      return .waiting
    }
    return listing(tag)
  }

  mutating func listing(_ tag: EmulatedTag) -> Reply {
    targetListed = true
    listedTag = tag
    return .response([0x01, 0x01] + targetData(tag))
  }

  private func targetData(_ tag: EmulatedTag) -> [UInt8] {
    [UInt8(tag.atqa >> 8), UInt8(tag.atqa & 0xFF), tag.sak, UInt8(tag.uid.count)] + tag.uid
  }

  private func dataExchange(_ parameters: [UInt8]) -> Reply {
    guard parameters.count >= 2 else { return .syntaxError }
    guard targetListed else { return .response([Status.notAcceptable]) }
    guard listedPresent, fieldOn else { return .response([Status.timeout]) }
    if parameters[1] == 0x30 {
      // A type 2 READ answers four pages; the emulated memory is blank.
      return .response([Status.success] + [UInt8](repeating: 0, count: 16))
    }
    return .response([Status.success])
  }

  /// InAutoPoll (PollNr, Period, types): the first round runs now; the chip answers when a
  /// round finds a tag, at that round's boundary, or with no target after the last round.
  private mutating func autoPoll(_ parameters: [UInt8], at now: Duration) -> Reply {
    guard parameters.count >= 3, parameters[0] != 0, (1...0x0F).contains(parameters[1]) else {
      return .syntaxError
    }
    let types = Array(parameters.dropFirst(2))
    fieldOn = true
    targetListed = false
    listedTag = nil
    if let found = autoPollRound(types) { return found }
    let rounds = parameters[0] == 0xFF ? nil : Int(parameters[0])
    guard rounds.map({ $0 > 1 }) ?? true else { return .response([0x00]) }
    pending = .autoPolling(
      types: types, start: now, period: .milliseconds(150) * Int(parameters[1]), nextRound: 1, rounds: rounds)
    return .waiting
  }

  /// One InAutoPoll round over the tags in the field now: the answer if one has a wanted type.
  private mutating func autoPollRound(_ types: [UInt8]) -> Reply? {
    guard let tag = takeTurn() else { return nil }
    // Generic 106 kbps type A, MIFARE, ISO 14443-4 type A: the types a type A tag answers to.
    let typeA: [UInt8] = tag.sak & 0x20 != 0 ? [0x00, 0x20, 0x10] : [0x00, 0x10]
    guard let type = types.first(where: typeA.contains) else { return nil }
    targetListed = true
    listedTag = tag
    let data: [UInt8] = [0x01] + targetData(tag)
    return .response([0x01, type, UInt8(data.count)] + data)
  }

  // MARK: - Commands that wait

  /// When the pending command next looks at the field on its own (an InAutoPoll round
  /// boundary); nil when nothing waits or only a change in the field can end the wait.
  public var nextCheck: Duration? {
    switch pending {
    case .autoPolling(_, let start, let period, let nextRound, _)?: return start + period * nextRound
    case .attempting, .activating: return timedListingNextCheck
    case .listing?, nil: return nil
    }
  }

  /// The pending command's answer if it has one at `now`: a listing once a tag is in the
  /// field; an InAutoPoll at each round boundary reached. Nil while it goes on waiting.
  public mutating func resume(at now: Duration) -> Reply? {
    switch pending {
    case nil:
      return nil
    case .listing(let initiatorData)?:
      let answering =
        initiatorData.isEmpty
        ? takeTurn() : tags.first { initiatorData == $0.uid || initiatorData == $0.cascadedUID }
      guard let tag = answering else { return nil }
      pending = nil
      return listing(tag)
    case .attempting?, .activating?:
      return resumeTimedListing(at: now)
    case .autoPolling(let types, let start, let period, var nextRound, let rounds)?:
      while start + period * nextRound <= now {
        nextRound += 1
        if let found = autoPollRound(types) {
          pending = nil
          return found
        }
        if let rounds, nextRound >= rounds {
          pending = nil
          return .response([0x00])
        }
      }
      pending = .autoPolling(types: types, start: start, period: period, nextRound: nextRound, rounds: rounds)
      return nil
    }
  }

  /// The host's ACK frame: the chip abandons the command still going on, without an answer.
  public mutating func abort() {
    pending = nil
  }
}
