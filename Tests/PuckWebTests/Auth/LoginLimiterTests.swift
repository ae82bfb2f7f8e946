import Testing

@testable import PuckWeb

@Suite struct LoginLimiterTests {
  @Test("19 wrong passwords in a minute are checked; the 20th try is refused until the first is a minute old")
  func twentiethIsRefused() {
    var limiter = LoginLimiter()
    for second in 0..<19 {
      #expect(limiter.refusal(for: "192.0.2.7", now: .seconds(second)) == nil, "try \(second + 1)")
      limiter.recordFailure(from: "192.0.2.7", now: .seconds(second))
    }
    #expect(limiter.refusal(for: "192.0.2.7", now: .seconds(19)) == .seconds(41))
    #expect(limiter.refusal(for: "192.0.2.8", now: .seconds(19)) == nil, "another address is not held back")
    #expect(limiter.refusal(for: "192.0.2.7", now: .seconds(59)) != nil)
    #expect(limiter.refusal(for: "192.0.2.7", now: .seconds(60)) == nil, "the first failure is a minute old")
    limiter.recordFailure(from: "192.0.2.7", now: .seconds(60))
    #expect(limiter.refusal(for: "192.0.2.7", now: .seconds(60)) != nil, "the window slides")
  }

  @Test("the right password starts the count again")
  func successClears() {
    var limiter = LoginLimiter()
    for second in 0..<18 { limiter.recordFailure(from: "a", now: .seconds(second)) }
    limiter.recordSuccess(from: "a")
    for second in 18..<36 { limiter.recordFailure(from: "a", now: .seconds(second)) }
    #expect(limiter.refusal(for: "a", now: .seconds(36)) == nil)
  }

  @Test("a flood of addresses keeps the table bounded and still limits the one that keeps trying")
  func bounded() {
    var limiter = LoginLimiter()
    for second in 0..<19 { limiter.recordFailure(from: "attacker", now: .seconds(Int64(second) + 30)) }
    for index in 0..<(LoginLimiter.capacity + 50) {
      limiter.recordFailure(from: "spray-\(index)", now: .seconds(49))
    }
    #expect(limiter.refusal(for: "attacker", now: .seconds(50)) != nil)
  }

  @Test(
    "a /64 shared by a home network: one guessing address is held at 19, the others log in until the network's 100"
  )
  func networkIsLooser() {
    let rig = WebAppTests.Rig()
    func tryPassword(_ password: String, from address: String) -> Int {
      let form = rig.get("/login")
      let token = form.cookieValue(WebApp.loginCookie) ?? ""
      return rig.app.handle(
        HTTPRequest(
          method: "POST", path: "/login",
          headers: ["host": "dock.local", "cookie": "\(WebApp.loginCookie)=\(token)"],
          body: Array("login=\(token)&password=\(password)".utf8), client: address,
          clientKey: "2001:db8:1:2::/64"),
        at: rig.now
      ).status
    }
    for _ in 0..<19 { #expect(tryPassword("wrong", from: "2001:db8:1:2::bad") == 401) }
    #expect(tryPassword("wrong", from: "2001:db8:1:2::bad") == 429, "the guessing address is held")
    #expect(tryPassword("correct+horse+battery", from: "2001:db8:1:2::a") == 303, "its neighbour is not")
    // A device that takes a new address for every 19 guesses meets the network's limit.
    var refused = false
    for round in 0..<10 where !refused {
      for _ in 0..<19 where !refused {
        refused = tryPassword("wrong", from: "2001:db8:1:2::\(round + 100)") == 429
      }
    }
    #expect(refused, "at most \(LoginLimiter.allowedPerNetwork) wrong passwords a minute from one /64")
  }
}
