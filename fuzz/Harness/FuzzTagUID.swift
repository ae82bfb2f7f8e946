// Tag UIDs typed by a person (`puckctl scan`, pairing files): parse or a UIDError; a parsed
// UID reads back from its own description.

func fuzzTagUID(_ data: UnsafeBufferPointer<UInt8>) {
  let input = text(data)
  do {
    let uid = try TagUID(parsing: input)
    fuzzCheck(TagUID.validLengths.contains(uid.bytes.count), "UID of \(uid.bytes.count) bytes")
    fuzzCheck((try? TagUID(parsing: uid.description)) == uid, "\(uid) does not parse back")
    _ = uid.masked
    _ = uid.isRandom
  } catch {
    _ = error.description
  }
}
