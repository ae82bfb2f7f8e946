/// One logged-in browser.
public struct Session: Hashable, Sendable {
  /// The cookie's value: 256 random bits.
  public let token: String
  /// The token every form of this session carries (CSRF): 256 random bits of its own.
  public let csrf: String
  /// When it was made and last used, on the monotonic clock the store is given.
  public let created: Duration
  public fileprivate(set) var lastUsed: Duration
  /// The password hash it was logged in with: a new password ends it.
  public let passwordStamp: String
  /// A one-line message for the next page (what the last form did), shown once.
  public fileprivate(set) var flash: Flash?
}

/// A message for the next page after a form: what happened, or why not.
public struct Flash: Hashable, Sendable {
  public var text: String
  public var isError: Bool

  public init(_ text: String, isError: Bool = false) {
    self.text = text
    self.isError = isError
  }
}

/// The web app's sessions, in memory only: a restart of `puck-web` logs everyone out, and
/// nothing secret is ever on disk. A session ends at logout, after `idleLimit` unused, after
/// `lifetime` in all, and when the password changes; the oldest goes when `capacity` is
/// reached. Time is a parameter (a monotonic reading), so tests move it by hand.
public struct SessionStore: Sendable {
  /// A session not used for this long ends: a phone on the nightstand stays logged in for a
  /// week of bedtimes.
  public static let idleLimit: Duration = .seconds(7 * 86_400)
  /// No session lasts longer than this, used or not.
  public static let lifetime: Duration = .seconds(30 * 86_400)
  /// The most sessions kept (a household's phones and laptops, with room to spare).
  public static let capacity = 32

  private var sessions: [String: Session] = [:]
  private let tokens: any TokenSource

  public init(tokens: any TokenSource) {
    self.tokens = tokens
  }

  /// How many sessions are live (expired ones are dropped when next seen or on a new login).
  public var count: Int { sessions.count }

  /// A new session for a login with the password whose hash is `passwordStamp`.
  public mutating func create(now: Duration, passwordStamp: String) throws -> Session {
    sessions = sessions.filter { isLive($0.value, now: now, passwordStamp: passwordStamp) }
    while sessions.count >= Self.capacity, let oldest = sessions.values.min(by: { $0.lastUsed < $1.lastUsed })
    {
      sessions[oldest.token] = nil
    }
    let session = Session(
      token: try tokens.token(), csrf: try tokens.token(), created: now, lastUsed: now,
      passwordStamp: passwordStamp, flash: nil)
    sessions[session.token] = session
    return session
  }

  /// The live session whose token is `token`, marked as used now when `touch`; nil (and the
  /// session dropped) when it has expired or was made with another password than `passwordStamp`.
  public mutating func session(for token: String?, now: Duration, passwordStamp: String, touch: Bool = true)
    -> Session?
  {
    guard let token, Token.isWellFormed(token), var session = sessions[token] else { return nil }
    guard isLive(session, now: now, passwordStamp: passwordStamp) else {
      sessions[token] = nil
      return nil
    }
    guard touch else { return session }
    session.lastUsed = now
    sessions[token] = session
    return session
  }

  /// Ends the session `token` (logout).
  public mutating func end(_ token: String) {
    sessions[token] = nil
  }

  /// Leaves `flash` for the session's next page.
  public mutating func leave(_ flash: Flash, for token: String) {
    sessions[token]?.flash = flash
  }

  /// The message left for this page, once.
  public mutating func takeFlash(for token: String) -> Flash? {
    defer { sessions[token]?.flash = nil }
    return sessions[token]?.flash
  }

  private func isLive(_ session: Session, now: Duration, passwordStamp: String) -> Bool {
    now - session.lastUsed < Self.idleLimit && now - session.created < Self.lifetime
      && session.passwordStamp == passwordStamp
  }
}
