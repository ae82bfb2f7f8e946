import PuckCore
import Testing

/// Default paths (docs/DESIGN.md D11): the system's for root, XDG's for anyone else, and no
/// guessable folder in /tmp for the socket.
@Suite struct StandardPathsTests {
  @Test func rootGetsTheSystemPathsWhateverItsEnvironment() {
    let paths = StandardPaths(environment: ["XDG_RUNTIME_DIR": "/run/user/0", "HOME": "/root"], isRoot: true)
    #expect(paths.config == "/etc/puckalarm/puckd.conf")
    #expect(paths.stateDirectory == "/var/lib/puckalarm")
    #expect(paths.socket == "/run/puckalarm/puckd.sock")
  }

  @Test func aUserGetsTheXDGDirectories() {
    let paths = StandardPaths(
      environment: [
        "HOME": "/home/ana", "XDG_CONFIG_HOME": "/home/ana/cfg", "XDG_STATE_HOME": "/home/ana/st",
        "XDG_RUNTIME_DIR": "/run/user/1000",
      ], isRoot: false)
    #expect(paths.config == "/home/ana/cfg/puckalarm/puckd.conf")
    #expect(paths.stateDirectory == "/home/ana/st/puckalarm")
    #expect(paths.socket == "/run/user/1000/puckalarm/puckd.sock")
  }

  @Test("unset or empty XDG variables fall back under HOME; the socket never in a name in /tmp")
  func withoutTheXDGVariables() {
    for environment in [["HOME": "/home/ana", "USER": "ana"], ["HOME": "/home/ana", "XDG_RUNTIME_DIR": ""]] {
      let paths = StandardPaths(environment: environment, isRoot: false)
      #expect(paths.config == "/home/ana/.config/puckalarm/puckd.conf")
      #expect(paths.stateDirectory == "/home/ana/.local/state/puckalarm")
      #expect(paths.socket == "/home/ana/.cache/puckalarm/puckd.sock", "\(environment)")
    }
  }
}
