import Glibc
import PuckSystem
import Testing

/// `withHome`: a missing HOME is filled from the passwd entry, a given one is kept.
@Suite struct UserHomeTests {
  @Test func aMissingOrEmptyHomeComesFromThePasswdEntry() throws {
    let entry = try #require(getpwuid(getuid()))
    let home = String(cString: entry.pointee.pw_dir)
    #expect(withHome([:])["HOME"] == home)
    #expect(withHome(["HOME": "", "USER": "x"]) == ["HOME": home, "USER": "x"])
    #expect(withHome(["HOME": "/srv/dock"])["HOME"] == "/srv/dock", "a HOME given is kept")
  }
}
