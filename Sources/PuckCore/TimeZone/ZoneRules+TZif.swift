extension ZoneRules {
  /// Rules from the bytes of a TZif file (RFC 8536, versions 1 to 4): the 64-bit data block
  /// when the file has one (version 2 and later), then the POSIX TZ footer for instants after
  /// the last transition. Versions after 4 are read as version 4, which they extend.
  ///
  /// Leap-second records are skipped: the schedule counts POSIX seconds, so the `right/`
  /// zones (whose transitions count leap seconds) would be off by their leap seconds.
  public init(tzif bytes: [UInt8], name: String) throws(ZoneRulesError) {
    var reader = TZifReader(bytes: bytes, zone: name)
    var header = try reader.header()
    var timeSize = 4
    if header.version >= UInt8(ascii: "2") {
      try reader.skip(header.dataBlockSize(timeSize: 4))
      header = try reader.header()
      timeSize = 8
    }
    let block = try reader.dataBlock(header, timeSize: timeSize)
    var rule: PosixTimeZone?
    if header.version >= UInt8(ascii: "2") {
      let footer = try reader.footer()
      if !footer.isEmpty {
        do {
          rule = try PosixTimeZone(parsing: footer)
        } catch {
          var reason = "\(error)"
          if case .badPosixTZ(_, let why) = error { reason = why }
          throw .malformed(zone: name, reason: "its rule '\(footer)' is not valid: \(reason)")
        }
      }
    }
    self.init(
      name: name, transitionTimes: block.times, transitionTypes: block.typeIndices.map { block.types[$0] },
      initialType: block.types[0], rule: rule)
  }
}

/// Reads a TZif file's header, data block and footer (RFC 8536 §3), checking every count
/// against the bytes there are.
private struct TZifReader {
  let bytes: [UInt8]
  let zone: String
  var position = 0

  init(bytes: [UInt8], zone: String) {
    self.bytes = bytes
    self.zone = zone
  }

  /// The counts in a TZif header.
  struct Header {
    var version: UInt8
    var isUTCCount: Int
    var isStandardCount: Int
    var leapCount: Int
    var timeCount: Int
    var typeCount: Int
    var charCount: Int

    func dataBlockSize(timeSize: Int) -> Int {
      timeCount * (timeSize + 1) + typeCount * 6 + charCount + leapCount * (timeSize + 4)
        + isStandardCount + isUTCCount
    }
  }

  /// The transitions and local time types of one data block.
  struct DataBlock {
    var times: [Int64]
    var typeIndices: [Int]
    var types: [LocalTimeType]
  }

  mutating func header() throws(ZoneRulesError) -> Header {
    if position == 0 && !bytes.starts(with: "TZif".utf8) { throw .notTZif(zone: zone) }
    let magic = try take(4)
    guard magic.elementsEqual("TZif".utf8) else {
      throw malformed("its second header is missing")
    }
    let version = try byte()
    try skip(15)
    var counts: [Int] = []
    for _ in 0..<6 { counts.append(Int(try unsigned32())) }
    let header = Header(
      version: version, isUTCCount: counts[0], isStandardCount: counts[1], leapCount: counts[2],
      timeCount: counts[3], typeCount: counts[4], charCount: counts[5])
    guard header.typeCount > 0 else { throw malformed("it has no local time types") }
    guard header.charCount > 0 else { throw malformed("it has no abbreviations") }
    guard header.isUTCCount == 0 || header.isUTCCount == header.typeCount,
      header.isStandardCount == 0 || header.isStandardCount == header.typeCount
    else { throw malformed("its standard/UT indicator counts do not match its type count") }
    return header
  }

  mutating func dataBlock(_ header: Header, timeSize: Int) throws(ZoneRulesError) -> DataBlock {
    guard bytes.count - position >= header.dataBlockSize(timeSize: timeSize) else {
      throw .truncated(zone: zone)
    }
    var times: [Int64] = []
    times.reserveCapacity(header.timeCount)
    for _ in 0..<header.timeCount {
      let time =
        timeSize == 8 ? Int64(bitPattern: try unsigned64()) : Int64(Int32(bitPattern: try unsigned32()))
      if let previous = times.last, time <= previous { throw malformed("its transitions are out of order") }
      times.append(time)
    }
    var typeIndices: [Int] = []
    typeIndices.reserveCapacity(header.timeCount)
    for _ in 0..<header.timeCount {
      let index = Int(try byte())
      guard index < header.typeCount else {
        throw malformed("a transition names type \(index) of \(header.typeCount)")
      }
      typeIndices.append(index)
    }
    var rawTypes: [(offset: Int, isDST: Bool, abbreviationIndex: Int)] = []
    for _ in 0..<header.typeCount {
      let offset = Int(Int32(bitPattern: try unsigned32()))
      let isDST = try byte()
      let abbreviationIndex = Int(try byte())
      guard LocalTimeType.offsetRange.contains(offset) else {
        throw malformed("an offset of \(offset) s is out of range")
      }
      guard isDST <= 1 else { throw malformed("a DST flag is \(isDST), not 0 or 1") }
      guard abbreviationIndex < header.charCount else {
        throw malformed("an abbreviation index is out of range")
      }
      rawTypes.append((offset, isDST == 1, abbreviationIndex))
    }
    let characters = try take(header.charCount)
    var types: [LocalTimeType] = []
    for raw in rawTypes {
      let start = characters.startIndex + raw.abbreviationIndex
      guard let end = characters[start...].firstIndex(of: 0) else {
        throw malformed("an abbreviation is not terminated")
      }
      types.append(
        LocalTimeType(
          offset: raw.offset, isDST: raw.isDST,
          abbreviation: String(decoding: characters[start..<end], as: UTF8.self)))
    }
    // Leap-second records and the standard/UT indicators do not affect local time here.
    try skip(header.leapCount * (timeSize + 4) + header.isStandardCount + header.isUTCCount)
    return DataBlock(times: times, typeIndices: typeIndices, types: types)
  }

  /// The POSIX TZ string between two newlines after the 64-bit data block (may be empty).
  mutating func footer() throws(ZoneRulesError) -> String {
    guard position < bytes.count, bytes[position] == UInt8(ascii: "\n") else { throw .truncated(zone: zone) }
    position += 1
    guard let end = bytes[position...].firstIndex(of: UInt8(ascii: "\n")) else {
      throw .truncated(zone: zone)
    }
    let text = String(decoding: bytes[position..<end], as: UTF8.self)
    position = end + 1
    return text
  }

  mutating func skip(_ count: Int) throws(ZoneRulesError) {
    _ = try take(count)
  }

  mutating func take(_ count: Int) throws(ZoneRulesError) -> ArraySlice<UInt8> {
    guard count >= 0, bytes.count - position >= count else { throw .truncated(zone: zone) }
    defer { position += count }
    return bytes[position..<position + count]
  }

  mutating func byte() throws(ZoneRulesError) -> UInt8 {
    guard position < bytes.count else { throw .truncated(zone: zone) }
    defer { position += 1 }
    return bytes[position]
  }

  mutating func unsigned32() throws(ZoneRulesError) -> UInt32 {
    try take(4).reduce(0) { $0 << 8 | UInt32($1) }
  }

  mutating func unsigned64() throws(ZoneRulesError) -> UInt64 {
    try take(8).reduce(0) { $0 << 8 | UInt64($1) }
  }

  func malformed(_ reason: String) -> ZoneRulesError { .malformed(zone: zone, reason: reason) }
}
