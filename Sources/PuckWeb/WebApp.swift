import PuckClient
import PuckCore
import PuckPassword
import Synchronization

/// A reading of the clocks for one request: the wall clock for what the pages show, the
/// monotonic one for session and login-limit times (a clock step moves neither).
public struct WebTime: Sendable {
  public var wall: Instant
  public var monotonic: Duration

  public init(wall: Instant, monotonic: Duration) {
    self.wall = wall
    self.monotonic = monotonic
  }
}

/// The web app: a request and the time in, a response out. It holds the sessions and the login
/// limit; it reaches the dock only through `dock`, and only with the commands in
/// `allowedCommands`; the password hash, the zone and the log come from the shell (`puck-web`).
///
/// Synchronisation: `Sendable` without `@unchecked`: the sessions and the limiter are behind one
/// `Mutex`. `puck-web` calls in from several threads at once (`HTTPServer.Limits.workers`), so
/// the lock is only ever held for the sessions' and the limiter's own bookkeeping, never across
/// a request to puckd or a password check.
public final class WebApp: Sendable {
  /// What the web may ask of puckd: reading the dock and its history, changing and pausing
  /// alarms, the holiday pause and the pre-flight check.
  /// Never `stop` (a phone in bed must not be a snooze button), `awake` (the wake-up check asks
  /// the person at the dock), `scan` (only a puck at a reader ends a wake-up, never a form),
  /// `test` (a rehearsal asks the person at the dock too: `puckctl test` there), nor anything of
  /// root's (override, pairing, reader keys, reload). puckd itself refuses all of these to the
  /// web app's user (its `web` role), so this list is a second lock, not the only one. Every
  /// request goes through `send`, which holds it to this list.
  public static let allowedCommands: Set<CommandName> = [
    .status, .alarmList, .alarmAdd, .alarmEnable, .alarmDisable, .alarmSkip, .alarmRemove, .alarmEdit,
    .alarmPause, .alarmResume, .pause, .resume, .history, .check,
  ]

  /// The session cookie's name.
  public static let sessionCookie = "puck_session"
  /// The login form's cookie: its token must come back in the form.
  public static let loginCookie = "puck_login"

  /// A cookie's name as this app sets it: under HTTPS with the `__Host-` prefix, which a
  /// browser accepts only on a `Secure` cookie for `Path=/` without a `Domain`, so no other
  /// host (another device on the network, a page of the same name over plain HTTP) can set or
  /// shadow it.
  private static func cookieName(_ name: String, secure: Bool) -> String { (secure ? "__Host-" : "") + name }
  private var sessionCookie: String { Self.cookieName(Self.sessionCookie, secure: secure) }
  private var loginCookie: String { Self.cookieName(Self.loginCookie, secure: secure) }

  private struct State: Sendable {
    var sessions: SessionStore
    var limiter = LoginLimiter()
    var networkLimiter = LoginLimiter(allowed: LoginLimiter.allowedPerNetwork)
  }

  private let state: Mutex<State>
  /// One password check at a time: the login limit's count and the check it refuses are one
  /// step even when requests are answered on several threads (H5: no 20th try slips through
  /// beside the 19th), and a flood of guesses takes one core, not all of a Pi's.
  private let passwordCheck = Mutex(())
  private let dock: any DockLink
  private let tokens: any TokenSource
  private let passwordHash: @Sendable () -> PasswordHash?
  private let zoneNamed: @Sendable (String) -> ZoneRules
  private let secure: Bool
  private let hostNames: HostNames
  private let log: @Sendable (String) -> Void

  /// - Parameters:
  ///   - passwordHash: the stored hash, read again at every request (nil: none set or refused),
  ///     so a new password takes effect, and ends the old one's sessions, without a restart.
  ///   - zoneNamed: the rules of the dock's zone, named by its status.
  ///   - secure: the app is served over HTTPS: cookies are `Secure`.
  ///   - hostNames: the names a request's `Host` may give besides an IP address.
  ///   - log: one line for the journal, with its `<N>` level prefix.
  public init(
    dock: any DockLink, tokens: any TokenSource, passwordHash: @escaping @Sendable () -> PasswordHash?,
    zoneNamed: @escaping @Sendable (String) -> ZoneRules, secure: Bool, hostNames: HostNames,
    log: @escaping @Sendable (String) -> Void
  ) {
    self.dock = dock
    self.tokens = tokens
    self.passwordHash = passwordHash
    self.zoneNamed = zoneNamed
    self.secure = secure
    self.hostNames = hostNames
    self.log = log
    state = Mutex(State(sessions: SessionStore(tokens: tokens)))
  }

  /// The answer to `request` at `time`.
  public func handle(_ request: HTTPRequest, at time: WebTime) -> HTTPResponse {
    guard hostNames.allows(request.header("host")) else {
      log(
        "<4>puck-web: refused a request for a host name not the dock's (\(request.client), \(request.path))")
      return .text(
        "refused: this dock does not answer to that name; add it to [web] hostnames in puckd.conf",
        status: 421)
    }
    let method = request.method == "HEAD" ? "GET" : request.method
    guard method == "GET" || method == "POST" else {
      var response = HTTPResponse.text("method not allowed", status: 405)
      response.headers.append(("Allow", "GET, HEAD, POST"))
      return response
    }
    switch (method, request.path) {
    case ("GET", "/style.css"):
      return HTTPResponse(
        status: 200,
        headers: [("Content-Type", "text/css; charset=utf-8"), ("Cache-Control", "public, max-age=604800")],
        body: Array(StyleSheet.text.utf8))
    case ("GET", "/app.js"): return .asset(Assets.script, type: "text/javascript; charset=utf-8")
    case ("GET", "/manifest.webmanifest"): return .asset(Assets.manifest, type: "application/manifest+json")
    case ("GET", "/login"): return loginPage(request, notice: request.query["out"] == nil ? nil : .loggedOut)
    case ("POST", "/login"): return logIn(request, at: time)
    default:
      if method == "GET", let icon = Assets.icons.first(where: { $0.path == request.path }) {
        return .asset(icon.bytes, type: icon.type)
      }
    }
    // Everything else needs a session; without one, the login page. The status page's own
    // refresh (`Assets.refreshHeader`) is not use: a page left open in a tab would otherwise keep
    // its session alive for good.
    let used = request.header(Assets.refreshHeader) == nil
    guard let hash = passwordHash(),
      let session = state.withLock({
        $0.sessions.session(
          for: request.cookies[sessionCookie], now: time.monotonic, passwordStamp: hash.encoded,
          touch: used)
      })
    else { return .redirect(to: "/login") }
    if method == "POST" {
      guard isSameOrigin(request) else {
        log("<4>puck-web: refused a form from another site (\(request.client), \(request.path))")
        return .text("refused: this form did not come from this site", status: 403)
      }
      guard let form = FormData(urlEncoded: request.body) else {
        return .text("refused: the form could not be read", status: 400)
      }
      guard Token.matches(form["csrf"], session.csrf) else {
        log("<4>puck-web: refused a form without its session's token (\(request.client), \(request.path))")
        return .text(
          "refused: the form's token is missing or stale; reload the page and try again", status: 403)
      }
      return post(request.path, form: form, session: session, at: time)
    }
    return page(request, session: session, at: time)
  }

  // MARK: Login and logout

  private func loginPage(_ request: HTTPRequest, notice: LoginPage.Notice?, status: Int = 200) -> HTTPResponse
  {
    // The browser's login token stays the same while its cookie lasts (a wrong password shows
    // the form again with it); a new one otherwise.
    let kept = request.cookies[loginCookie].flatMap { Token.isWellFormed($0) ? $0 : nil }
    guard let token = kept ?? (try? tokens.token()) else {
      return .text("no random bytes for the login form; try again", status: 503)
    }
    let shown = passwordHash() == nil ? .noPassword : notice
    return HTTPResponse.page(LoginPage.render(loginToken: token, notice: shown), status: status)
      .setting(cookie: cookie(Self.loginCookie, token, maxAge: 3600))
  }

  private func logIn(_ request: HTTPRequest, at time: WebTime) -> HTTPResponse {
    passwordCheck.withLock { _ in checkPassword(request, at: time) }
  }

  private func checkPassword(_ request: HTTPRequest, at time: WebTime) -> HTTPResponse {
    // Counted per address, and more loosely per network (LoginLimiter).
    let address = request.client.isEmpty ? request.clientKey : request.client
    let network = request.clientKey
    let refused = state.withLock { state in
      [
        state.limiter.refusal(for: address, now: time.monotonic),
        state.networkLimiter.refusal(for: network, now: time.monotonic),
      ]
      .compactMap { $0 }.max()
    }
    if let wait = refused {
      log("<4>puck-web: login refused: too many wrong passwords from \(request.client)")
      let seconds = Int(wait.components.seconds) + 1
      var response = loginPage(request, notice: .tooManyTries(seconds: seconds), status: 429)
      response.headers.append(("Retry-After", String(seconds)))
      return response
    }
    guard isSameOrigin(request), let form = FormData(urlEncoded: request.body),
      let expected = request.cookies[loginCookie], Token.isWellFormed(expected),
      Token.matches(form["login"], expected)
    else { return loginPage(request, notice: .expiredForm, status: 403) }
    guard let hash = passwordHash() else { return loginPage(request, notice: .noPassword, status: 503) }
    guard let password = form["password"], hash.matches(password) else {
      state.withLock { state in
        state.limiter.recordFailure(from: address, now: time.monotonic)
        state.networkLimiter.recordFailure(from: network, now: time.monotonic)
      }
      log("<4>puck-web: wrong password from \(request.client)")
      return loginPage(request, notice: .wrongPassword, status: 401)
    }
    let session: Session
    do {
      session = try state.withLock { state throws in
        state.limiter.recordSuccess(from: address)
        return try state.sessions.create(now: time.monotonic, passwordStamp: hash.encoded)
      }
    } catch {
      return .text("no random bytes for a session; try again", status: 503)
    }
    log("<5>puck-web: logged in from \(request.client)")
    return HTTPResponse.redirect(to: "/")
      .setting(
        cookie: cookie(
          Self.sessionCookie, session.token, maxAge: Int(SessionStore.lifetime.components.seconds))
      )
      .setting(cookie: cookie(Self.loginCookie, "", maxAge: 0))
  }

  /// A cookie for this site only, out of reach of scripts and of other sites' requests.
  private func cookie(_ name: String, _ value: String, maxAge: Int) -> String {
    "\(Self.cookieName(name, secure: secure))=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
      + (secure ? "; Secure" : "")
  }

  /// Whether a form came from a page of this site. A browser's `Sec-Fetch-Site` says so when
  /// it sends one (every current browser does); otherwise its `Origin` must be this site. Under
  /// `Referrer-Policy: no-referrer` a browser's form posts carry `Origin: null`, so that value
  /// proves nothing either way and is let through to the token check. Requests that carry
  /// neither header (a script at the dock) pass too: they still need the form's token.
  private func isSameOrigin(_ request: HTTPRequest) -> Bool {
    if let site = request.header("sec-fetch-site") { return site == "same-origin" || site == "none" }
    guard let origin = request.header("origin"), origin != "null" else { return true }
    guard let host = request.header("host") else { return false }
    return origin == (secure ? "https://" : "http://") + host
  }

  // MARK: Pages

  private func page(_ request: HTTPRequest, session: Session, at time: WebTime) -> HTTPResponse {
    let path = request.path
    let flash = state.withLock { $0.sessions.takeFlash(for: session.token) }
    switch path {
    case "/":
      return withReply(.init(.status), session: session) { reply in
        guard let status = reply.status else { return nil }
        let text = TimeText(zone: zoneNamed(status.zone), now: time.wall)
        return StatusPage.render(status, time: text, csrf: session.csrf, flash: flash)
      }
    case "/alarms":
      return withReply(.init(.status), session: session) { statusReply in
        let zone = statusReply.status.map { zoneNamed($0.zone) } ?? .utc
        return withReplyHTML(.init(.alarmList)) { reply in
          AlarmsPage.render(
            reply.alarms ?? [], dockPausedUntil: reply.pausedUntil,
            time: TimeText(zone: zone, now: time.wall),
            csrf: session.csrf, flash: flash)
        }
      }
    case "/history":
      return withReply(.init(.status), session: session) { statusReply in
        let zone = statusReply.status.map { zoneNamed($0.zone) } ?? .utc
        var query: [Field: ArgumentValue] = [.limit: .integer(20)]
        let before = request.query["before"].flatMap(Int.init).flatMap { $0 >= 0 ? $0 : nil }
        query[.before] = before.map(ArgumentValue.integer)
        return withReplyHTML(ControlRequest(.history, query)) { reply in
          // The figures on the first page only: they read 12 weeks of history.
          let since = time.wall.adding(seconds: -12 * 7 * 86_400)
          let stats =
            before == nil ? historyEntries(since: since).map { WakeStats(entries: $0, zone: zone) } : nil
          return HistoryPage.render(
            reply.history ?? [], olderCursor: reply.nextBefore, stats: stats,
            time: TimeText(zone: zone, now: time.wall),
            csrf: session.csrf, flash: flash)
        }
      }
    case "/history.csv":
      guard let status = try? send(.init(.status)).get().status, let entries = historyEntries(since: nil)
      else {
        return unavailable("puckd did not answer the request", session: session)
      }
      let zone = zoneNamed(status.zone)
      let rows = [HistoryCSV.header] + entries.map { HistoryCSV.row($0, zone: zone) }
      return HTTPResponse(
        status: 200,
        headers: [
          ("Content-Type", "text/csv; charset=utf-8"), ("Cache-Control", "no-store"),
          ("Content-Disposition", "attachment; filename=\"puckalarm-history.csv\""),
        ],
        body: Array((rows.joined(separator: "\r\n") + "\r\n").utf8))
    case "/pause":
      return withReply(.init(.status), session: session) { reply in
        guard let status = reply.status else { return nil }
        let today = zoneNamed(status.zone).localDateTime(at: time.wall).date
        return HolidayPage.render(
          pausedUntil: status.pausedUntil, today: today, csrf: session.csrf, flash: flash)
      }
    default:
      let parts = path.split(separator: "/").map(String.init)
      guard parts.count == 2, parts[0] == "alarms", let id = Int(parts[1]) else {
        return .text("not found", status: 404)
      }
      return withReply(.init(.status), session: session) { statusReply in
        let zone = statusReply.status.map { zoneNamed($0.zone) } ?? .utc
        return withReplyHTML(.init(.alarmList)) { reply in
          guard let view = reply.alarms?.first(where: { $0.alarm.id == id }) else {
            return Layout.page(
              title: "No such alarm", place: .alarms, csrf: session.csrf,
              body:
                "<section><p>There is no alarm \(id).</p><p><a href=\"/alarms\">Back to the alarms</a></p></section>"
            )
          }
          return AlarmEditPage.render(
            view, today: zone.localDateTime(at: time.wall).date, time: TimeText(zone: zone, now: time.wall),
            csrf: session.csrf, flash: flash)
        }
      }
    }
  }

  /// The page `render` makes of puckd's reply to `request`, or a page that says why there is
  /// none (503: puckd not answering or refusing).
  private func withReply(
    _ request: ControlRequest, session: Session, render: (ControlReply) -> HTML?
  ) -> HTTPResponse {
    switch send(request) {
    case .success(let reply):
      guard reply.ok == true, let html = render(reply) else {
        return unavailable(reply.failure?.message ?? "puckd did not answer the request", session: session)
      }
      return .page(html)
    case .failure(let failure):
      return unavailable(failure.message, session: session)
    }
  }

  /// The most history entries a page or the CSV reads: 20 pages of 1000.
  static let historyPages = 20

  /// History entries closed at or after `since` (nil: all, up to `historyPages` pages), oldest
  /// first, a page of 1000 at a time; nil when puckd does not answer.
  private func historyEntries(since: Instant?) -> [HistoryEntry]? {
    try? HistoryPages.entries(since: since, pages: Self.historyPages) { request in
      guard case .success(let reply) = send(request), reply.ok == true else { throw HistoryUnanswered() }
      return reply
    }
  }

  /// A nested `withReply` whose failure shows as the same page.
  private func withReplyHTML(_ request: ControlRequest, render: (ControlReply) -> HTML?) -> HTML? {
    guard case .success(let reply) = send(request), reply.ok == true else { return nil }
    return render(reply)
  }

  private func unavailable(_ why: String, session: Session) -> HTTPResponse {
    .page(
      Layout.page(
        title: "The dock is not answering", place: nil, csrf: session.csrf,
        body: "<section><p>\(why)</p><p>Reload this page in a moment.</p></section>"),
      status: 503)
  }

  // MARK: Forms

  private func post(_ path: String, form: FormData, session: Session, at time: WebTime) -> HTTPResponse {
    if path == "/logout" {
      state.withLock { $0.sessions.end(session.token) }
      log("<5>puck-web: logged out")
      return HTTPResponse.redirect(to: "/login?out=1").setting(
        cookie: cookie(Self.sessionCookie, "", maxAge: 0))
    }
    let parts = path.split(separator: "/").map(String.init)
    let request: ControlRequest
    // Where the browser goes after the form: the page it came from.
    var back = "/alarms"
    switch parts {
    case ["alarms", "add"]:
      switch Self.alarmDraft(from: form) {
      case .success(let draft): request = ControlRequest(adding: draft)
      case .failure(let problem): return done(.failure(problem), back: back, session: session)
      }
    case let parts where parts.count == 3 && parts[0] == "alarms":
      guard let id = Int(parts[1]), id > 0, id < 1_000_000 else { return .text("not found", status: 404) }
      if ["edit", "pause", "resume"].contains(parts[2]) { back = "/alarms/\(id)" }
      let names: [String: CommandName] = [
        "enable": .alarmEnable, "disable": .alarmDisable, "skip": .alarmSkip, "delete": .alarmRemove,
        "resume": .alarmResume,
      ]
      switch parts[2] {
      case "edit":
        switch Self.alarmEdit(from: form) {
        case .success(let edit): request = ControlRequest(editing: id, edit)
        case .failure(let problem): return done(.failure(problem), back: back, session: session)
        }
      case "pause":
        guard let text = form["until"], let date = try? LocalDate(parsing: text) else {
          return done(
            .failure(ControlFailure(.badRequest, "choose the date it rings again")), back: back,
            session: session)
        }
        request = ControlRequest(.alarmPause, [.id: .integer(id), .until: .date(.absolute(date))])
      default:
        guard let name = names[parts[2]] else { return .text("not found", status: 404) }
        request = ControlRequest(name, [.id: .integer(id)])
      }
    case ["pause"]:
      back = "/pause"
      guard let text = form["until"], let date = try? LocalDate(parsing: text) else {
        return done(
          .failure(ControlFailure(.badRequest, "choose the date alarms ring again")), back: back,
          session: session)
      }
      request = ControlRequest(.pause, [.until: .date(.absolute(date))])
    case ["resume"]:
      back = "/pause"
      request = ControlRequest(.resume)
    case ["check"]:
      back = "/"
      return checked(session: session)
    default:
      return .text("not found", status: 404)
    }
    let checked: ControlRequest
    do throws(ControlFailure) {
      checked = try request.validated()
    } catch {
      return done(.failure(error), back: back, session: session)
    }
    return done(send(checked), back: back, session: session)
  }

  /// After a form: what happened goes to the next page, and the browser is sent there (303),
  /// so a reload never posts again.
  private func done(_ result: Result<ControlReply, ControlFailure>, back: String, session: Session)
    -> HTTPResponse
  {
    let flash: Flash
    switch result {
    case .success(let reply) where reply.ok == true:
      flash = Flash(reply.message ?? "done")
    case .success(let reply):
      flash = Flash(reply.failure?.message ?? reply.message ?? "puckd refused", isError: true)
    case .failure(let failure):
      flash = Flash(failure.message, isError: true)
    }
    state.withLock { $0.sessions.leave(flash, for: session.token) }
    return .redirect(to: back)
  }

  /// Runs the pre-flight check now; its verdict, and each failed part, for the status page.
  private func checked(session: Session) -> HTTPResponse {
    let flash: Flash
    switch send(ControlRequest(.check)) {
    case .success(let reply):
      if let report = reply.check {
        flash =
          report.passed
          ? Flash("The pre-flight check passed: every part answered.")
          : Flash(
            "The pre-flight check FAILED: " + report.failures.map(\.line).joined(separator: "; "),
            isError: true)
      } else {
        flash = Flash(reply.failure?.message ?? "puckd did not run the check", isError: true)
      }
    case .failure(let failure):
      flash = Flash(failure.message, isError: true)
    }
    state.withLock { $0.sessions.leave(flash, for: session.token) }
    return .redirect(to: "/")
  }

  /// The one way a request reaches puckd: refused here unless the web may send it.
  func send(_ request: ControlRequest) -> Result<ControlReply, ControlFailure> {
    guard Self.allowedCommands.contains(request.name) else {
      log("<3>puck-web: refused to send \(request.name.rawValue): not a command of the web app")
      return .failure(
        ControlFailure(.permissionDenied, "\(request.spec.commandLine) is not available from the web"))
    }
    do throws(ControlFailure) {
      return .success(try dock.send(request))
    } catch {
      return .failure(error)
    }
  }

  /// What the edit form says: every field, so the alarm becomes what the form shows. Days or a
  /// date, one of them (an edit cannot mean "the next time the clock shows it").
  static func alarmEdit(from form: FormData) -> Result<AlarmEdit, ControlFailure> {
    switch alarmDraft(from: form) {
    case .failure(let problem): return .failure(problem)
    case .success(let draft):
      if case .next = draft.recurrence {
        return .failure(ControlFailure(.badRequest, "choose days to repeat on or one date"))
      }
      return .success(
        AlarmEdit(
          time: draft.time, recurrence: draft.recurrence, label: draft.label, requiresPuck: draft.requiresPuck
        ))
    }
  }

  /// The alarm the add form describes: a time, then days or a date (or neither: the next time
  /// the clock shows it), a label, whether the puck is needed.
  static func alarmDraft(from form: FormData) -> Result<AlarmDraft, ControlFailure> {
    guard let timeText = form["time"], let time = try? WallTime(parsing: timeText) else {
      return .failure(ControlFailure(.badRequest, "the time must be HH:MM"))
    }
    let dayNames = form.values("days")
    var days: Set<Weekday> = []
    for name in dayNames {
      guard let day = Weekday(shortName: name) else {
        return .failure(ControlFailure(.badRequest, "unknown day \(name)"))
      }
      days.insert(day)
    }
    let dateText = form["date"] ?? ""
    let recurrence: DraftRecurrence
    switch (days.isEmpty, dateText.isEmpty) {
    case (false, false):
      return .failure(ControlFailure(.badRequest, "choose days to repeat on or one date, not both"))
    case (false, true):
      recurrence = .weekly(days)
    case (true, false):
      guard let date = try? LocalDate(parsing: dateText) else {
        return .failure(ControlFailure(.badRequest, "the date must be YYYY-MM-DD"))
      }
      recurrence = .once(date)
    case (true, true):
      recurrence = .next
    }
    return .success(
      AlarmDraft(
        time: time, recurrence: recurrence, label: form["label"] ?? "", requiresPuck: form["puck"] != nil))
  }
}

/// puckd did not answer a page of history.
private struct HistoryUnanswered: Error {}
