import Testing

@testable import PuckWeb

@Suite struct SessionStoreTests {
  let stamp = "$y$hash-one"

  @Test("a session is found by its token and marked used; a malformed or unknown token finds none")
  func lookup() throws {
    var store = SessionStore(tokens: CountingTokens())
    let session = try store.create(now: .seconds(10), passwordStamp: stamp)
    #expect(session.token != session.csrf)
    #expect(
      store.session(for: session.token, now: .seconds(20), passwordStamp: stamp)?.lastUsed == .seconds(20))
    #expect(
      store.session(for: String(repeating: "f", count: 64), now: .seconds(20), passwordStamp: stamp) == nil)
    #expect(store.session(for: "x", now: .seconds(20), passwordStamp: stamp) == nil)
    #expect(store.session(for: nil, now: .seconds(20), passwordStamp: stamp) == nil)
  }

  @Test("a session ends after a week unused, after 30 days in all, at logout, and with a new password")
  func expiry() throws {
    var store = SessionStore(tokens: CountingTokens())
    let idle = try store.create(now: .zero, passwordStamp: stamp)
    #expect(
      store.session(for: idle.token, now: SessionStore.idleLimit - .seconds(1), passwordStamp: stamp) != nil)
    let later = SessionStore.idleLimit - .seconds(1) + SessionStore.idleLimit
    #expect(store.session(for: idle.token, now: later, passwordStamp: stamp) == nil)
    #expect(
      store.session(for: idle.token, now: .seconds(1), passwordStamp: stamp) == nil, "it is gone for good")

    let used = try store.create(now: .zero, passwordStamp: stamp)
    var now = Duration.zero
    while now < SessionStore.lifetime - .seconds(86_400) {
      now += .seconds(86_400)
      #expect(store.session(for: used.token, now: now, passwordStamp: stamp) != nil)
    }
    #expect(store.session(for: used.token, now: SessionStore.lifetime, passwordStamp: stamp) == nil)

    let loggedOut = try store.create(now: .zero, passwordStamp: stamp)
    store.end(loggedOut.token)
    #expect(store.session(for: loggedOut.token, now: .seconds(1), passwordStamp: stamp) == nil)

    let old = try store.create(now: .zero, passwordStamp: stamp)
    #expect(store.session(for: old.token, now: .seconds(1), passwordStamp: "$y$hash-two") == nil)
    #expect(store.session(for: old.token, now: .seconds(2), passwordStamp: stamp) == nil)
  }

  @Test("at most 32 sessions: the least recently used goes")
  func capacity() throws {
    var store = SessionStore(tokens: CountingTokens())
    let first = try store.create(now: .zero, passwordStamp: stamp)
    var sessions = [first]
    for index in 1..<SessionStore.capacity {
      sessions.append(try store.create(now: .seconds(Int64(index)), passwordStamp: stamp))
    }
    // The first is used again, so the second is now the least recently used.
    #expect(store.session(for: first.token, now: .seconds(100), passwordStamp: stamp) != nil)
    _ = try store.create(now: .seconds(101), passwordStamp: stamp)
    #expect(store.count == SessionStore.capacity)
    #expect(store.session(for: sessions[1].token, now: .seconds(102), passwordStamp: stamp) == nil)
    #expect(store.session(for: first.token, now: .seconds(102), passwordStamp: stamp) != nil)
  }

  @Test("a message left for the next page is shown once")
  func flash() throws {
    var store = SessionStore(tokens: CountingTokens())
    let session = try store.create(now: .zero, passwordStamp: stamp)
    store.leave(Flash("alarm 1 added"), for: session.token)
    #expect(store.takeFlash(for: session.token) == Flash("alarm 1 added"))
    #expect(store.takeFlash(for: session.token) == nil)
  }
}
