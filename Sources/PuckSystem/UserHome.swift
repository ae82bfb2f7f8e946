import Glibc

/// `environment` with `HOME` taken from the passwd database (`getpwuid_r`) when it is unset or
/// empty, as under some `su` and cron set-ups: a user's default paths (`StandardPaths`) then stay
/// in their own home rather than in a shared folder another user could take first.
public func withHome(_ environment: [String: String]) -> [String: String] {
  guard environment["HOME"]?.isEmpty ?? true else { return environment }
  var entry = passwd()
  var found: UnsafeMutablePointer<passwd>?
  var buffer = [CChar](repeating: 0, count: 16_384)
  let home = buffer.withUnsafeMutableBufferPointer { storage -> String? in
    guard let base = storage.baseAddress, getpwuid_r(getuid(), &entry, base, storage.count, &found) == 0,
      found != nil, let directory = entry.pw_dir
    else { return nil }
    return String(cString: directory)
  }
  guard let home, !home.isEmpty else { return environment }
  var filled = environment
  filled["HOME"] = home
  return filled
}
